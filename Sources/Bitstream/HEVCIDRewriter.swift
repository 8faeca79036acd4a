/// Renumbers the parameter sets of a smart cut's re-encoded HEVC pictures to ids the stream
/// does not use, as the H.264 spans' sets already are (x264's `sps-id`): x265 has no option
/// for its ids and numbers its VPS, SPS and PPS 0, the stream's own. Sent in-band under those
/// ids, its sets replaced the stream's while the last copied picture before a span still
/// referred to them, which libde265 (single thread) decoded wrongly at 25 dB (issue 50).
///
/// Each of x265's units is rewritten as it comes: its VPS (`vps_video_parameter_set_id`), SPS
/// (`sps_video_parameter_set_id`, `sps_seq_parameter_set_id`), PPS (`pps_pic_parameter_set_id`,
/// `pps_seq_parameter_set_id`), and every slice segment header (`slice_pic_parameter_set_id`,
/// read with the SPS and PPS it names); other units (SEI) pass unchanged. A second set of a kind
/// under another id is refused: there is one free id of each kind for them.
public struct HEVCIDRewriter {
    let ids: HEVCParameterSetIDs
    /// x265's sets by x265's ids, as they were sent.
    private var videoID: Int?
    private var sequences: [Int: HEVCSequenceParameterSet] = [:]
    private var pictures: [Int: HEVCPictureParameterSet] = [:]

    public init(ids: HEVCParameterSetIDs) { self.ids = ids }

    /// `unit` (a NAL unit, no start code) renumbered.
    public mutating func rewritten(_ unit: [UInt8]) throws -> [UInt8] {
        guard let nal = HEVCNALUnit(unit) else { return unit }
        switch nal.type {
        case .videoParameterSet:
            try remember(&videoID, try HEVCVideoParameterSet(nal).id, element: "vps_video_parameter_set_id")
            return try HEVCVideoParameterSet.renumbered(nal, id: ids.vps).bytes
        case .sequenceParameterSet:
            let sps = try HEVCSequenceParameterSet(nal)
            var known = sequences.keys.first
            try remember(&known, sps.id, element: "sps_seq_parameter_set_id")
            sequences[sps.id] = sps
            return try HEVCSequenceParameterSet.renumbered(nal, vps: ids.vps, id: ids.sps).bytes
        case .pictureParameterSet:
            let pps = try HEVCPictureParameterSet(nal)
            var known = pictures.keys.first
            try remember(&known, pps.id, element: "pps_pic_parameter_set_id")
            pictures[pps.id] = pps
            return try HEVCPictureParameterSet.renumbered(nal, id: ids.pps, sps: ids.sps).bytes
        case let type? where type.isSlice:
            let header = try HEVCSliceSegmentHeader(nal) { id in
                pictures[id].flatMap { pps in sequences[pps.spsID].map { ($0, pps) } }
            }
            return try header.renumbered(nal, pps: ids.pps).bytes
        default:
            return unit
        }
    }

    /// Records the id of a set of one kind; another id than the first is refused.
    private func remember(_ known: inout Int?, _ id: Int, element: String) throws {
        if let known, known != id { throw SyntaxError(element: element, problem: .unsupported("is \(id) after \(known): x265 sent two sets of a kind")) }
        known = id
    }
}

/// The ids a smart cut's re-encoded HEVC sets take: for each kind the lowest that no set of
/// the stream uses (VPS u(4) 0...15, SPS ue(v) 0...15, PPS ue(v) 0...63).
public struct HEVCParameterSetIDs: Equatable, Sendable {
    var vps: Int
    var sps: Int
    var pps: Int

    /// Free ids beside the sets `units` (VPS, SPS and PPS NAL units; others are ignored); nil
    /// when a set's id cannot be read or a kind has no id left.
    public init?(avoiding units: [[UInt8]]) {
        var used: [HEVCNALType: Set<Int>] = [:]
        for unit in units {
            guard let nal = HEVCNALUnit(unit) else { return nil }
            do {
                if let type = nal.type, let id = try Self.id(of: nal) { used[type, default: []].insert(id) }
            } catch { return nil }
        }
        func free(_ type: HEVCNALType, _ range: ClosedRange<Int>) -> Int? { range.first { !(used[type]?.contains($0) ?? false) } }
        guard let vps = free(.videoParameterSet, 0...15), let sps = free(.sequenceParameterSet, 0...15),
              let pps = free(.pictureParameterSet, 0...63) else { return nil }
        (self.vps, self.sps, self.pps) = (vps, sps, pps)
    }

    init(vps: Int, sps: Int, pps: Int) { (self.vps, self.sps, self.pps) = (vps, sps, pps) }

    /// The id of a parameter set, read as far as the id; nil for another unit.
    private static func id(of nal: HEVCNALUnit) throws -> Int? {
        var r = SyntaxReader(nal.rbsp)
        switch nal.type {
        case .videoParameterSet: return try r.u("vps_video_parameter_set_id", 4)
        case .sequenceParameterSet:
            _ = try r.u("sps_video_parameter_set_id", 4)
            let layers = try r.u("sps_max_sub_layers_minus1", 3, in: 0...6)
            _ = try r.flag("sps_temporal_id_nesting_flag")
            try HEVCSequenceParameterSet.skipProfileTierLevel(&r, subLayers: layers)
            return try r.ue("sps_seq_parameter_set_id", in: 0...15)
        case .pictureParameterSet: return try r.ue("pps_pic_parameter_set_id", in: 0...63)
        default: return nil
        }
    }
}
