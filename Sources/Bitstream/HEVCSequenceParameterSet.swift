/// An HEVC sequence parameter set (ITU-T H.265 7.3.2.2), read up to
/// `strong_intra_smoothing_enabled_flag`: its ids and what a slice segment header's layout
/// depends on (``HEVCSliceSegmentHeader``). The VUI and extensions after it are not read; a
/// rewrite copies them.
struct HEVCSequenceParameterSet: Equatable {
    /// `sps_video_parameter_set_id` and `sps_seq_parameter_set_id`.
    var vpsID = 0
    var id = 0
    /// `ChromaArrayType`: 0 for 4:0:0 or separately coded colour planes.
    var chromaArrayType = 1
    var separateColourPlanes = false
    /// `PicSizeInCtbsY`: coding tree blocks in a picture.
    var pictureSizeInCTBs = 1
    /// `CtbLog2SizeY` and `MinCbLog2SizeY`: the coding tree and smallest coding block sizes.
    var ctbLog2Size = 4
    var minCodingBlockLog2Size = 3
    var log2MaxPocLsb = 4
    var shortTermSets: [HEVCShortTermReferenceSet] = []
    var longTermPresent = false
    /// `used_by_curr_pic_lt_sps_flag` of the SPS's long-term candidates.
    var longTermUsed: [Bool] = []
    var temporalMVP = false
    var sampleAdaptiveOffset = false
    /// `sps_max_dec_pic_buffering_minus1` + 1 of the highest sub-layer.
    var maxPictures = 1
    /// Every element read, in order, with its bits.
    private(set) var elements: [SyntaxReader.Element] = []

    init(_ unit: HEVCNALUnit) throws {
        guard unit.type == .sequenceParameterSet else {
            throw SyntaxError(element: "nal_unit_type", problem: .unsupported("is \(unit.typeValue), not a sequence parameter set"))
        }
        var r = SyntaxReader(unit.rbsp)
        vpsID = try r.u("sps_video_parameter_set_id", 4)
        let subLayers = try r.u("sps_max_sub_layers_minus1", 3, in: 0...6)
        _ = try r.flag("sps_temporal_id_nesting_flag")
        try Self.skipProfileTierLevel(&r, subLayers: subLayers)
        id = try r.ue("sps_seq_parameter_set_id", in: 0...15)
        try readPicture(&r)
        try readCoding(&r)
        elements = r.elements
    }

    /// From `chroma_format_idc` to the sub-layer ordering info.
    private mutating func readPicture(_ r: inout SyntaxReader) throws {
        let chroma = try r.ue("chroma_format_idc", in: 0...3)
        if chroma == 3 { separateColourPlanes = try r.flag("separate_colour_plane_flag") }
        chromaArrayType = separateColourPlanes ? 0 : chroma
        let width = try r.ue("pic_width_in_luma_samples", in: 1...65535)
        let height = try r.ue("pic_height_in_luma_samples", in: 1...65535)
        if try r.flag("conformance_window_flag") {
            for name in ["conf_win_left_offset", "conf_win_right_offset", "conf_win_top_offset", "conf_win_bottom_offset"] {
                _ = try r.ue(name, in: 0...65535)
            }
        }
        _ = try r.ue("bit_depth_luma_minus8", in: 0...8)
        _ = try r.ue("bit_depth_chroma_minus8", in: 0...8)
        log2MaxPocLsb = try r.ue("log2_max_pic_order_cnt_lsb_minus4", in: 0...12) + 4
        let subLayers = r.element("sps_max_sub_layers_minus1")?.value ?? 0
        let all = try r.flag("sps_sub_layer_ordering_info_present_flag")
        for _ in (all ? 0 : subLayers)...subLayers {
            maxPictures = try r.ue("sps_max_dec_pic_buffering_minus1", in: 0...15) + 1
            _ = try r.ue("sps_max_num_reorder_pics", in: 0...15)
            _ = try r.ue("sps_max_latency_increase_plus1", in: 0...Int(UInt32.max - 1))
        }
        let minCB = try r.ue("log2_min_luma_coding_block_size_minus3", in: 0...3) + 3
        let ctb = minCB + (try r.ue("log2_diff_max_min_luma_coding_block_size", in: max(0, 4 - minCB)...(6 - minCB)))
        (ctbLog2Size, minCodingBlockLog2Size) = (ctb, minCB)
        pictureSizeInCTBs = ((width + (1 << ctb) - 1) >> ctb) * ((height + (1 << ctb) - 1) >> ctb)
    }

    /// From the transform block sizes to `strong_intra_smoothing_enabled_flag`.
    private mutating func readCoding(_ r: inout SyntaxReader) throws {
        _ = try r.ue("log2_min_luma_transform_block_size_minus2", in: 0...3)
        _ = try r.ue("log2_diff_max_min_luma_transform_block_size", in: 0...3)
        _ = try r.ue("max_transform_hierarchy_depth_inter", in: 0...4)
        _ = try r.ue("max_transform_hierarchy_depth_intra", in: 0...4)
        if try r.flag("scaling_list_enabled_flag"), try r.flag("sps_scaling_list_data_present_flag") { try HEVCScalingList.skip(&r) }
        _ = try r.flag("amp_enabled_flag")
        sampleAdaptiveOffset = try r.flag("sample_adaptive_offset_enabled_flag")
        if try r.flag("pcm_enabled_flag") {
            _ = try r.u("pcm_sample_bit_depth_luma_minus1", 4)
            _ = try r.u("pcm_sample_bit_depth_chroma_minus1", 4)
            _ = try r.ue("log2_min_pcm_luma_coding_block_size_minus3", in: 0...2)
            _ = try r.ue("log2_diff_max_min_pcm_luma_coding_block_size", in: 0...2)
            _ = try r.flag("pcm_loop_filter_disabled_flag")
        }
        let sets = try r.ue("num_short_term_ref_pic_sets", in: 0...64)
        for index in 0..<sets {
            shortTermSets.append(try HEVCShortTermReferenceSet(&r, index: index, list: shortTermSets, maxPictures: maxPictures))
        }
        longTermPresent = try r.flag("long_term_ref_pics_present_flag")
        if longTermPresent {
            for _ in 0..<(try r.ue("num_long_term_ref_pics_sps", in: 0...32)) {
                _ = try r.u("lt_ref_pic_poc_lsb_sps", log2MaxPocLsb)
                longTermUsed.append(try r.flag("used_by_curr_pic_lt_sps_flag"))
            }
        }
        temporalMVP = try r.flag("sps_temporal_mvp_enabled_flag")
        _ = try r.flag("strong_intra_smoothing_enabled_flag")
    }

    /// `profile_tier_level(1, sps_max_sub_layers_minus1)` (7.3.3): the general profile, tier
    /// and level (96 bits), then each sub-layer's, as their flags say.
    static func skipProfileTierLevel(_ r: inout SyntaxReader, subLayers: Int) throws {
        try r.skip("general_profile_tier_level", bits: 96)
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayers {
            present.append((try r.flag("sub_layer_profile_present_flag"), try r.flag("sub_layer_level_present_flag")))
        }
        if subLayers > 0 { try r.skip("reserved_zero_2bits", bits: 2 * (8 - subLayers)) }
        for layer in present {
            if layer.profile { try r.skip("sub_layer_profile", bits: 88) }
            if layer.level { try r.skip("sub_layer_level_idc", bits: 8) }
        }
    }

    /// `unit` (an SPS) naming VPS `vps` and numbered `id`; every other bit as it was.
    static func renumbered(_ unit: HEVCNALUnit, vps: Int, id: Int) throws -> HEVCNALUnit {
        let sps = try HEVCSequenceParameterSet(unit)
        guard (0...15).contains(vps) else { throw SyntaxError(element: "sps_video_parameter_set_id", problem: .outOfRange(vps, 0...15)) }
        guard (0...15).contains(id) else { throw SyntaxError(element: "sps_seq_parameter_set_id", problem: .outOfRange(id, 0...15)) }
        let vpsBits = sps.elements.first { $0.name == "sps_video_parameter_set_id" }!.bits
        let idBits = sps.elements.first { $0.name == "sps_seq_parameter_set_id" }!.bits
        let rbsp = try RBSPRewrite.replacing(idBits, in: unit.rbsp, end: .trailingBits) { $0.ue(id) }
        var out = HEVCNALUnit(header: unit.header, rbsp: rbsp)
        out.rbsp = try RBSPRewrite.replacing(vpsBits, in: out.rbsp, end: .trailingBits) { $0.bits(vps, 4) }
        return out
    }
}
