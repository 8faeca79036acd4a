/// An HEVC short-term reference picture set, `st_ref_pic_set(stRpsIdx)` (ITU-T H.265 7.3.7,
/// 7.4.8): the picture order count differences of the pictures kept for reference, before
/// (S0) and after (S1) the current one, and whether the current picture uses each. Read in the
/// SPS (a list) and in slice headers (one more, which may predict from the list); what a slice
/// header's layout needs from it is how many pictures the current one uses (`NumPicTotalCurr`)
/// and, for later sets that predict from it, its differences.
struct HEVCShortTermReferenceSet: Equatable {
    struct Picture: Equatable {
        var delta: Int
        var used: Bool
    }

    var negative: [Picture] = []
    var positive: [Picture] = []

    var count: Int { negative.count + positive.count }
    /// The pictures the current picture uses.
    var usedCount: Int { (negative + positive).count(where: \.used) }

    init(negative: [Picture] = [], positive: [Picture] = []) {
        self.negative = negative
        self.positive = positive
    }

    /// Reads set `index` of `list` (the SPS's sets before it); `index == list.count` when read in
    /// a slice header. `maxPictures` is `sps_max_dec_pic_buffering_minus1` + 1 of the highest
    /// sub-layer.
    init(_ r: inout SyntaxReader, index: Int, list: [HEVCShortTermReferenceSet], maxPictures: Int) throws {
        let predicted = index != 0 ? try r.flag("inter_ref_pic_set_prediction_flag") : false
        guard predicted else {
            let negatives = try r.ue("num_negative_pics", in: 0...max(0, maxPictures - 1))
            let positives = try r.ue("num_positive_pics", in: 0...max(0, maxPictures - 1 - negatives))
            var poc = 0
            for _ in 0..<negatives {
                poc -= try r.ue("delta_poc_s0_minus1", in: 0...32767) + 1
                negative.append(Picture(delta: poc, used: try r.flag("used_by_curr_pic_s0_flag")))
            }
            poc = 0
            for _ in 0..<positives {
                poc += try r.ue("delta_poc_s1_minus1", in: 0...32767) + 1
                positive.append(Picture(delta: poc, used: try r.flag("used_by_curr_pic_s1_flag")))
            }
            return
        }
        let deltaIndex = index == list.count ? try r.ue("delta_idx_minus1", in: 0...(index - 1)) + 1 : 1
        let sign = try r.flag("delta_rps_sign")
        let deltaRps = (sign ? -1 : 1) * (try r.ue("abs_delta_rps_minus1", in: 0...32767) + 1)
        let reference = list[index - deltaIndex]
        // For each picture of the reference set and the reference picture itself (last).
        var used: [Bool] = [], useDelta: [Bool] = []
        for _ in 0...reference.count {
            let u = try r.flag("used_by_curr_pic_flag")
            used.append(u)
            useDelta.append(u ? true : try r.flag("use_delta_flag"))
        }
        self = Self.predicted(from: reference, deltaRps: deltaRps, used: used, useDelta: useDelta)
    }

    /// A set predicted from `reference` (H.265 equations 7-61 and 7-62): its pictures moved by
    /// `deltaRps`, with the reference picture itself at `deltaRps`, those marked in `useDelta`
    /// (indexed S0 first, then S1, then the reference picture), in order of distance.
    private static func predicted(from reference: Self, deltaRps: Int, used: [Bool], useDelta: [Bool]) -> Self {
        let n = reference.negative.count, all = reference.count
        var out = Self()
        for (j, p) in reference.positive.enumerated().reversed() where p.delta + deltaRps < 0 && useDelta[n + j] {
            out.negative.append(Picture(delta: p.delta + deltaRps, used: used[n + j]))
        }
        if deltaRps < 0 && useDelta[all] { out.negative.append(Picture(delta: deltaRps, used: used[all])) }
        for (j, p) in reference.negative.enumerated() where p.delta + deltaRps < 0 && useDelta[j] {
            out.negative.append(Picture(delta: p.delta + deltaRps, used: used[j]))
        }
        for (j, p) in reference.negative.enumerated().reversed() where p.delta + deltaRps > 0 && useDelta[j] {
            out.positive.append(Picture(delta: p.delta + deltaRps, used: used[j]))
        }
        if deltaRps > 0 && useDelta[all] { out.positive.append(Picture(delta: deltaRps, used: used[all])) }
        for (j, p) in reference.positive.enumerated() where p.delta + deltaRps > 0 && useDelta[n + j] {
            out.positive.append(Picture(delta: p.delta + deltaRps, used: used[n + j]))
        }
        return out
    }
}
