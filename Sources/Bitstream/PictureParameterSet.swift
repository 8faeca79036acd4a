/// The fields of an H.264 picture parameter set (ITU-T H.264 7.3.2.2) that decide how a slice
/// header is laid out, which ``SliceHeader`` needs to find and rewrite its fields.
public struct PictureParameterSet: Equatable, Sendable {
    var id = 0
    var spsID = 0
    /// CABAC (`entropy_coding_mode_flag`): the slice data then starts byte-aligned.
    var cabac = false
    var bottomFieldPicOrderInFramePresent = false
    var sliceGroups = 1
    var numRefIdxL0DefaultActive = 1
    var numRefIdxL1DefaultActive = 1
    var weightedPred = false
    var weightedBipredIdc = 0
    var deblockingFilterControlPresent = false
    var redundantPicCntPresent = false

    /// Parses a NAL unit (header byte first); nil when it is not a readable PPS. A PPS with
    /// several slice groups is read up to their count (the rest is not needed to refuse it).
    init?(_ unit: [UInt8]) {
        guard unit.count > 1, H264NALType.of(unit[0]) == .pictureParameterSet else { return nil }
        var r = SyntaxReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? parse(&r)) != nil else { return nil }
    }

    private init() {}

    /// Every element of PPS NAL unit `unit` as read, in order, with its bits (what
    /// ``SyntaxWriter`` writes again); nil when it is not a readable PPS.
    static func elements(of unit: [UInt8]) -> [SyntaxReader.Element]? {
        guard unit.count > 1, H264NALType.of(unit[0]) == .pictureParameterSet else { return nil }
        var set = Self()
        var r = SyntaxReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? set.parse(&r)) != nil else { return nil }
        return r.elements
    }

    private mutating func parse(_ r: inout SyntaxReader) throws {
        id = try r.ue("pic_parameter_set_id", in: 0...255)
        spsID = try r.ue("seq_parameter_set_id", in: 0...31)
        cabac = try r.flag("entropy_coding_mode_flag")
        bottomFieldPicOrderInFramePresent = try r.flag("bottom_field_pic_order_in_frame_present_flag")
        sliceGroups = try r.ue("num_slice_groups_minus1", in: 0...7) + 1
        guard sliceGroups == 1 else { return }
        numRefIdxL0DefaultActive = try r.ue("num_ref_idx_l0_default_active_minus1", in: 0...31) + 1
        numRefIdxL1DefaultActive = try r.ue("num_ref_idx_l1_default_active_minus1", in: 0...31) + 1
        weightedPred = try r.flag("weighted_pred_flag")
        weightedBipredIdc = try r.u("weighted_bipred_idc", 2, in: 0...2)
        // QpBdOffsetY is at most 48 (14 bits).
        _ = try r.se("pic_init_qp_minus26", in: -74...25)
        _ = try r.se("pic_init_qs_minus26", in: -26...25)
        _ = try r.se("chroma_qp_index_offset", in: -12...12)
        deblockingFilterControlPresent = try r.flag("deblocking_filter_control_present_flag")
        _ = try r.flag("constrained_intra_pred_flag")
        redundantPicCntPresent = try r.flag("redundant_pic_cnt_present_flag")
    }
}
