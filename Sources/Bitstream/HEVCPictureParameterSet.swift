/// An HEVC picture parameter set (ITU-T H.265 7.3.2.3), read up to its extensions: its ids and
/// what a slice segment header's layout depends on (``HEVCSliceSegmentHeader``). Of the
/// extensions only the range extension is read (its chroma QP offset lists add a slice header
/// field); the multilayer, 3D and screen content extensions are refused.
struct HEVCPictureParameterSet: Equatable {
    /// `pps_pic_parameter_set_id` and `pps_seq_parameter_set_id`.
    var id = 0
    var spsID = 0
    var dependentSliceSegments = false
    var outputFlagPresent = false
    var extraSliceHeaderBits = 0
    var cabacInitPresent = false
    var numRefIdxL0DefaultActive = 1
    var numRefIdxL1DefaultActive = 1
    var sliceChromaQPOffsetsPresent = false
    var weightedPred = false
    var weightedBipred = false
    var tiles = false
    var entropyCodingSync = false
    var loopFilterAcrossSlices = false
    var deblockingFilterOverride = false
    var deblockingFilterDisabled = false
    var listsModificationPresent = false
    var sliceHeaderExtensionPresent = false
    var chromaQPOffsetList = false
    /// Every element read, in order, with its bits.
    private(set) var elements: [SyntaxReader.Element] = []

    init(_ unit: HEVCNALUnit) throws {
        guard unit.type == .pictureParameterSet else {
            throw SyntaxError(element: "nal_unit_type", problem: .unsupported("is \(unit.typeValue), not a picture parameter set"))
        }
        var r = SyntaxReader(unit.rbsp)
        id = try r.ue("pps_pic_parameter_set_id", in: 0...63)
        spsID = try r.ue("pps_seq_parameter_set_id", in: 0...15)
        dependentSliceSegments = try r.flag("dependent_slice_segments_enabled_flag")
        outputFlagPresent = try r.flag("output_flag_present_flag")
        extraSliceHeaderBits = try r.u("num_extra_slice_header_bits", 3)
        _ = try r.flag("sign_data_hiding_enabled_flag")
        cabacInitPresent = try r.flag("cabac_init_present_flag")
        numRefIdxL0DefaultActive = try r.ue("num_ref_idx_l0_default_active_minus1", in: 0...14) + 1
        numRefIdxL1DefaultActive = try r.ue("num_ref_idx_l1_default_active_minus1", in: 0...14) + 1
        _ = try r.se("init_qp_minus26", in: -(26 + 6 * 8)...25)
        _ = try r.flag("constrained_intra_pred_flag")
        let transformSkip = try r.flag("transform_skip_enabled_flag")
        if try r.flag("cu_qp_delta_enabled_flag") { _ = try r.ue("diff_cu_qp_delta_depth", in: 0...3) }
        _ = try r.se("pps_cb_qp_offset", in: -12...12)
        _ = try r.se("pps_cr_qp_offset", in: -12...12)
        sliceChromaQPOffsetsPresent = try r.flag("pps_slice_chroma_qp_offsets_present_flag")
        weightedPred = try r.flag("weighted_pred_flag")
        weightedBipred = try r.flag("weighted_bipred_flag")
        _ = try r.flag("transquant_bypass_enabled_flag")
        tiles = try r.flag("tiles_enabled_flag")
        entropyCodingSync = try r.flag("entropy_coding_sync_enabled_flag")
        if tiles { try Self.skipTiles(&r) }
        loopFilterAcrossSlices = try r.flag("pps_loop_filter_across_slices_enabled_flag")
        try readDeblocking(&r)
        if try r.flag("pps_scaling_list_data_present_flag") { try HEVCScalingList.skip(&r) }
        listsModificationPresent = try r.flag("lists_modification_present_flag")
        _ = try r.ue("log2_parallel_merge_level_minus2", in: 0...4)
        sliceHeaderExtensionPresent = try r.flag("slice_segment_header_extension_present_flag")
        try readExtensions(&r, transformSkip: transformSkip)
        elements = r.elements
    }

    private static func skipTiles(_ r: inout SyntaxReader) throws {
        let columns = try r.ue("num_tile_columns_minus1", in: 0...19)
        let rows = try r.ue("num_tile_rows_minus1", in: 0...21)
        if !(try r.flag("uniform_spacing_flag")) {
            for _ in 0..<columns { _ = try r.ue("column_width_minus1", in: 0...1055) }
            for _ in 0..<rows { _ = try r.ue("row_height_minus1", in: 0...1055) }
        }
        _ = try r.flag("loop_filter_across_tiles_enabled_flag")
    }

    private mutating func readDeblocking(_ r: inout SyntaxReader) throws {
        guard try r.flag("deblocking_filter_control_present_flag") else { return }
        deblockingFilterOverride = try r.flag("deblocking_filter_override_enabled_flag")
        deblockingFilterDisabled = try r.flag("pps_deblocking_filter_disabled_flag")
        if !deblockingFilterDisabled {
            _ = try r.se("pps_beta_offset_div2", in: -6...6)
            _ = try r.se("pps_tc_offset_div2", in: -6...6)
        }
    }

    /// `pps_extension_present_flag` and the range extension (7.3.2.3.2).
    private mutating func readExtensions(_ r: inout SyntaxReader, transformSkip: Bool) throws {
        guard try r.flag("pps_extension_present_flag") else { return }
        let range = try r.flag("pps_range_extension_flag")
        for name in ["pps_multilayer_extension_flag", "pps_3d_extension_flag", "pps_scc_extension_flag"] where try r.flag(name) {
            throw SyntaxError(element: name, problem: .unsupported("is set: that extension is not read"))
        }
        _ = try r.u("pps_extension_4bits", 4)
        guard range else { return }
        if transformSkip { _ = try r.ue("log2_max_transform_skip_block_size_minus2", in: 0...3) }
        _ = try r.flag("cross_component_prediction_enabled_flag")
        chromaQPOffsetList = try r.flag("chroma_qp_offset_list_enabled_flag")
        if chromaQPOffsetList {
            _ = try r.ue("diff_cu_chroma_qp_offset_depth", in: 0...3)
            for _ in 0...(try r.ue("chroma_qp_offset_list_len_minus1", in: 0...5)) {
                _ = try r.se("cb_qp_offset_list", in: -12...12)
                _ = try r.se("cr_qp_offset_list", in: -12...12)
            }
        }
        _ = try r.ue("log2_sao_offset_scale_luma", in: 0...10)
        _ = try r.ue("log2_sao_offset_scale_chroma", in: 0...10)
    }

    /// `unit` (a PPS) numbered `id` and naming SPS `sps`; every other bit as it was.
    static func renumbered(_ unit: HEVCNALUnit, id: Int, sps: Int) throws -> HEVCNALUnit {
        let pps = try HEVCPictureParameterSet(unit)
        guard (0...63).contains(id) else { throw SyntaxError(element: "pps_pic_parameter_set_id", problem: .outOfRange(id, 0...63)) }
        guard (0...15).contains(sps) else { throw SyntaxError(element: "pps_seq_parameter_set_id", problem: .outOfRange(sps, 0...15)) }
        let first = pps.elements[0].bits, second = pps.elements[1].bits
        let rbsp = try RBSPRewrite.replacing(first.lowerBound..<second.upperBound, in: unit.rbsp, end: .trailingBits) {
            $0.ue(id)
            $0.ue(sps)
        }
        return HEVCNALUnit(header: unit.header, rbsp: rbsp)
    }
}
