/// An HEVC slice segment header (ITU-T H.265 7.3.6.1), read whole with the SPS and PPS it
/// names, up to its `byte_alignment()`: renumbering a slice's picture parameter set
/// (`slice_pic_parameter_set_id`, ue(v), so its length may change) rewrites the header's bits
/// up to there and copies the slice data after it, which starts at a byte boundary, as it is
/// (``renumbered(_:pps:)``). The entry point offsets count the slice data's bytes as stored, so
/// they hold: the data's bytes and their emulation prevention stay the same, since the byte
/// before them holds the alignment's one bit.
struct HEVCSliceSegmentHeader: Equatable {
    enum Kind: Int { case b = 0, p, i }

    var nalType: HEVCNALType
    var firstSliceSegmentInPicture = false
    /// `slice_pic_parameter_set_id`.
    var ppsID = 0
    var dependent = false
    var kind = Kind.i
    /// Every element read, in order, with its bits.
    private(set) var elements: [SyntaxReader.Element] = []
    /// Where `byte_alignment()` starts in the RBSP; the slice data follows at the next byte.
    private(set) var alignment = 0

    /// Reads the header of a slice segment NAL unit, whose picture parameter set `sets` gives
    /// by id (with its SPS).
    init(_ unit: HEVCNALUnit, sets: (Int) -> (sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet)?) throws {
        guard let nalType = unit.type, nalType.isSlice else {
            throw SyntaxError(element: "nal_unit_type", problem: .unsupported("is \(unit.typeValue), not a coded slice segment"))
        }
        self.nalType = nalType
        var r = SyntaxReader(unit.rbsp)
        firstSliceSegmentInPicture = try r.flag("first_slice_segment_in_pic_flag")
        if nalType.isIRAP { _ = try r.flag("no_output_of_prior_pics_flag") }
        ppsID = try r.ue("slice_pic_parameter_set_id", in: 0...63)
        guard let (sps, pps) = sets(ppsID) else {
            throw SyntaxError(element: "slice_pic_parameter_set_id", problem: .unsupported("is \(ppsID), a set that has not been sent"))
        }
        if !firstSliceSegmentInPicture {
            if pps.dependentSliceSegments { dependent = try r.flag("dependent_slice_segment_flag") }
            let width = Int.bitWidth - (sps.pictureSizeInCTBs - 1).leadingZeroBitCount
            _ = try r.u("slice_segment_address", width, in: 0...(sps.pictureSizeInCTBs - 1))
        }
        if !dependent { try readIndependent(&r, sps: sps, pps: pps) }
        if pps.tiles || pps.entropyCodingSync {
            let offsets = try r.ue("num_entry_point_offsets", in: 0...(sps.pictureSizeInCTBs * 22))
            if offsets > 0 {
                let width = try r.ue("offset_len_minus1", in: 0...31) + 1
                for _ in 0..<offsets { _ = try r.u("entry_point_offset_minus1", width) }
            }
        }
        if pps.sliceHeaderExtensionPresent {
            for _ in 0..<(try r.ue("slice_segment_header_extension_length", in: 0...256)) {
                _ = try r.u("slice_segment_header_extension_data_byte", 8)
            }
        }
        alignment = r.position
        _ = try r.u("alignment_bit_equal_to_one", 1, in: 1...1)
        while r.position % 8 != 0 { _ = try r.u("alignment_bit_equal_to_zero", 1, in: 0...0) }
        elements = r.elements
    }

    /// From `slice_reserved_flag` to `slice_loop_filter_across_slices_enabled_flag`: the fields
    /// of an independent slice segment.
    private mutating func readIndependent(_ r: inout SyntaxReader, sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet) throws {
        for _ in 0..<pps.extraSliceHeaderBits { _ = try r.flag("slice_reserved_flag") }
        kind = Kind(rawValue: try r.ue("slice_type", in: 0...2))!
        if pps.outputFlagPresent { _ = try r.flag("pic_output_flag") }
        if sps.separateColourPlanes { _ = try r.u("colour_plane_id", 2, in: 0...2) }
        var temporalMVP = false, usedPictures = 0
        if !nalType.isIDR {
            usedPictures = try readReferencePictures(&r, sps: sps)
            if sps.temporalMVP { temporalMVP = try r.flag("slice_temporal_mvp_enabled_flag") }
        }
        var sao = false
        if sps.sampleAdaptiveOffset {
            sao = try r.flag("slice_sao_luma_flag")
            if sps.chromaArrayType != 0 { sao = try r.flag("slice_sao_chroma_flag") || sao }
        }
        if kind != .i { try readInterPrediction(&r, sps: sps, pps: pps, temporalMVP: temporalMVP, usedPictures: usedPictures) }
        _ = try r.se("slice_qp_delta", in: -99...99)
        if pps.sliceChromaQPOffsetsPresent {
            _ = try r.se("slice_cb_qp_offset", in: -12...12)
            _ = try r.se("slice_cr_qp_offset", in: -12...12)
        }
        if pps.chromaQPOffsetList { _ = try r.flag("cu_chroma_qp_offset_enabled_flag") }
        let override = pps.deblockingFilterOverride ? try r.flag("deblocking_filter_override_flag") : false
        var deblockingDisabled = pps.deblockingFilterDisabled
        if override {
            deblockingDisabled = try r.flag("slice_deblocking_filter_disabled_flag")
            if !deblockingDisabled {
                _ = try r.se("slice_beta_offset_div2", in: -6...6)
                _ = try r.se("slice_tc_offset_div2", in: -6...6)
            }
        }
        if pps.loopFilterAcrossSlices && (sao || !deblockingDisabled) { _ = try r.flag("slice_loop_filter_across_slices_enabled_flag") }
    }

    /// The picture order count and the reference picture sets; returns `NumPicTotalCurr`.
    private func readReferencePictures(_ r: inout SyntaxReader, sps: HEVCSequenceParameterSet) throws -> Int {
        _ = try r.u("slice_pic_order_cnt_lsb", sps.log2MaxPocLsb)
        let sets = sps.shortTermSets
        var current: HEVCShortTermReferenceSet
        if !(try r.flag("short_term_ref_pic_set_sps_flag")) {
            current = try HEVCShortTermReferenceSet(&r, index: sets.count, list: sets, maxPictures: sps.maxPictures)
        } else {
            guard !sets.isEmpty else { throw SyntaxError(element: "short_term_ref_pic_set_sps_flag", problem: .unsupported("is set, but the SPS has no sets")) }
            let width = Int.bitWidth - (sets.count - 1).leadingZeroBitCount
            current = sets[sets.count > 1 ? try r.u("short_term_ref_pic_set_idx", width, in: 0...(sets.count - 1)) : 0]
        }
        var used = current.usedCount
        guard sps.longTermPresent else { return used }
        let candidates = sps.longTermUsed.count
        let fromSPS = candidates > 0 ? try r.ue("num_long_term_sps", in: 0...candidates) : 0
        let pictures = try r.ue("num_long_term_pics", in: 0...(sps.maxPictures - fromSPS))
        for i in 0..<(fromSPS + pictures) {
            if i < fromSPS {
                let width = Int.bitWidth - (candidates - 1).leadingZeroBitCount
                let index = candidates > 1 ? try r.u("lt_idx_sps", width, in: 0...(candidates - 1)) : 0
                if sps.longTermUsed[index] { used += 1 }
            } else {
                _ = try r.u("poc_lsb_lt", sps.log2MaxPocLsb)
                if try r.flag("used_by_curr_pic_lt_flag") { used += 1 }
            }
            if try r.flag("delta_poc_msb_present_flag") { _ = try r.ue("delta_poc_msb_cycle_lt", in: 0...Int(UInt32.max - 1)) }
        }
        return used
    }

    /// From `num_ref_idx_active_override_flag` to `five_minus_max_num_merge_cand`.
    private func readInterPrediction(_ r: inout SyntaxReader, sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet,
                                     temporalMVP: Bool, usedPictures: Int) throws {
        var active = (pps.numRefIdxL0DefaultActive, kind == .b ? pps.numRefIdxL1DefaultActive : 0)
        if try r.flag("num_ref_idx_active_override_flag") {
            active.0 = try r.ue("num_ref_idx_l0_active_minus1", in: 0...14) + 1
            if kind == .b { active.1 = try r.ue("num_ref_idx_l1_active_minus1", in: 0...14) + 1 }
        }
        if pps.listsModificationPresent && usedPictures > 1 {
            let width = Int.bitWidth - (usedPictures - 1).leadingZeroBitCount
            for (list, count) in [active.0, active.1].enumerated() where count > 0 {
                guard try r.flag("ref_pic_list_modification_flag_l\(list)") else { continue }
                for _ in 0..<count { _ = try r.u("list_entry_l\(list)", width, in: 0...(usedPictures - 1)) }
            }
        }
        if kind == .b { _ = try r.flag("mvd_l1_zero_flag") }
        if pps.cabacInitPresent { _ = try r.flag("cabac_init_flag") }
        if temporalMVP {
            let fromL0 = kind == .b ? try r.flag("collocated_from_l0_flag") : true
            if (fromL0 ? active.0 : active.1) > 1 { _ = try r.ue("collocated_ref_idx", in: 0...((fromL0 ? active.0 : active.1) - 1)) }
        }
        if (pps.weightedPred && kind == .p) || (pps.weightedBipred && kind == .b) {
            try Self.skipPredictionWeights(&r, active: kind == .b ? [active.0, active.1] : [active.0], chroma: sps.chromaArrayType != 0)
        }
        _ = try r.ue("five_minus_max_num_merge_cand", in: 0...4)
    }

    /// `pred_weight_table()` (7.3.6.3) of a single-layer stream (every reference is another picture).
    private static func skipPredictionWeights(_ r: inout SyntaxReader, active: [Int], chroma: Bool) throws {
        _ = try r.ue("luma_log2_weight_denom", in: 0...7)
        if chroma { _ = try r.se("delta_chroma_log2_weight_denom", in: -7...7) }
        for (list, count) in active.enumerated() {
            let luma = try (0..<count).map { _ in try r.flag("luma_weight_l\(list)_flag") }
            let chromaFlags = chroma ? try (0..<count).map { _ in try r.flag("chroma_weight_l\(list)_flag") } : Array(repeating: false, count: count)
            for i in 0..<count {
                if luma[i] {
                    _ = try r.se("delta_luma_weight_l\(list)", in: -128...127)
                    _ = try r.se("luma_offset_l\(list)", in: -32768...32767)
                }
                guard chromaFlags[i] else { continue }
                for _ in 0..<2 {
                    _ = try r.se("delta_chroma_weight_l\(list)", in: -128...127)
                    _ = try r.se("delta_chroma_offset_l\(list)", in: -131072...131071)
                }
            }
        }
    }

    /// `unit` (this slice segment) naming picture parameter set `pps`: the header's bits up to
    /// its `byte_alignment()` written again around the new id, the slice data copied.
    func renumbered(_ unit: HEVCNALUnit, pps: Int) throws -> HEVCNALUnit {
        guard (0...63).contains(pps) else { throw SyntaxError(element: "slice_pic_parameter_set_id", problem: .outOfRange(pps, 0...63)) }
        let bits = elements.first { $0.name == "slice_pic_parameter_set_id" }!.bits
        let rbsp = try RBSPRewrite.replacing(bits, in: unit.rbsp, end: .byteAlignment(at: alignment)) { $0.ue(pps) }
        return HEVCNALUnit(header: unit.header, rbsp: rbsp)
    }
}
