/// The fields of an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1 and E.1.1) that a smart
/// cut's re-encoded pictures must agree with: whether pictures are frames only (not fields), how
/// many reference frames the stream keeps, and its decoded picture buffer size
/// (`max_dec_frame_buffering`). A decoder may discard the pictures it still holds for reordering
/// when an IDR activates an SPS whose buffer size differs (H.264 C.4.4, "no_output_of_prior_pics
/// may be inferred"), and OpenH264 2.3 does: it dropped the two B-frames before each re-encoded
/// span until the new SPS declared the stream's buffer size (x264's `ref` sets both).
///
/// Rewriting a copied open-GOP recovery point as an IDR picture (``OpenGOPResume``) reads slice
/// headers, whose field widths the SPS gives (`log2_max_frame_num`, the picture order count's
/// type and `log2_max_pic_order_cnt_lsb`), and sets `gaps_in_frame_num_value_allowed_flag`.
public struct SequenceParameterSet: Equatable, Sendable {
    var id = 0
    public internal(set) var frameMBsOnly = true
    public internal(set) var maxNumRefFrames = 0
    /// Nil when the SPS has no bitstream restriction (the level's maximum then applies).
    var maxDecFrameBuffering: Int?
    /// 4:2:0 is 1; `separate_colour_plane_flag` makes a 4:4:4 stream's ChromaArrayType 0.
    var chromaFormat = 1
    var separateColourPlanes = false
    public internal(set) var log2MaxFrameNum = 4
    /// `pic_order_cnt_type` (0, 1 or 2) and, for type 0, the width of `pic_order_cnt_lsb`.
    var pocType = 0
    var log2MaxPocLsb = 4
    var gapsInFrameNumAllowed = false
    /// Where `gaps_in_frame_num_value_allowed_flag` is in the RBSP (after the header byte).
    private var gapsBit = 0

    var chromaArrayType: Int { separateColourPlanes ? 0 : chromaFormat }

    /// `profile_idc`, `constraint_set3_flag`, `level_idc` and the frame's size in macroblocks:
    /// what the buffer size is inferred from when the SPS does not state it.
    var profile = 0, constraintSet3 = false, level = 0, frameMBs = 0

    /// The decoded picture buffer size a decoder uses (H.264 E.2.1): the stated
    /// `max_dec_frame_buffering`, else 0 for the intra profiles with `constraint_set3_flag`,
    /// else MaxDpbFrames, the level's MaxDpbMbs (Table A-1) over the frame's macroblocks, at
    /// most 16 (an all-intra x264 stream with no reference frames states none: its buffer is
    /// the level's, not its 0 reference frames).
    public var decFrameBuffering: Int? {
        if let maxDecFrameBuffering { return maxDecFrameBuffering }
        if constraintSet3 && [44, 86, 100, 110, 122, 244].contains(profile) { return 0 }
        let table: [Int: Int] = [9: 396, 10: 396, 11: 900, 12: 2376, 13: 2376, 20: 2376, 21: 4752, 22: 8100, 30: 8100, 31: 18000,
                                 32: 20480, 40: 32768, 41: 32768, 42: 34816, 50: 110400, 51: 184320, 52: 184320, 60: 696320, 61: 696320, 62: 696320]
        guard let mbs = table[level], frameMBs > 0 else { return nil }
        return min(16, mbs / frameMBs)
    }

    /// Parses a NAL unit (header byte first); nil when it is not a readable SPS.
    init?(_ unit: [UInt8]) {
        guard unit.count > 4, H264NALType.of(unit[0]) == .sequenceParameterSet else { return nil }
        var r = SyntaxReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? parse(&r)) != nil else { return nil }
    }

    private init() {}

    /// Every element of SPS NAL unit `unit` as read, in order, with its bits (what
    /// ``SyntaxWriter`` writes again); nil when it is not a readable SPS.
    static func elements(of unit: [UInt8]) -> [SyntaxReader.Element]? {
        guard unit.count > 4, H264NALType.of(unit[0]) == .sequenceParameterSet else { return nil }
        var set = Self()
        var r = SyntaxReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? set.parse(&r)) != nil else { return nil }
        return r.elements
    }

    /// `profile_idc` and the byte of constraint flags after it of an SPS NAL unit (header byte
    /// first), read from its first bytes alone; nil when it is not an SPS.
    public static func profileIndication(_ unit: [UInt8]) -> (profile: Int, constraintFlags: UInt8)? {
        guard unit.count > 2, H264NALType.of(unit[0]) == .sequenceParameterSet else { return nil }
        return (Int(unit[1]), unit[2])
    }

    /// `unit` (an SPS NAL unit) with `gaps_in_frame_num_value_allowed_flag` set: a decoder then
    /// infers "non-existing" frames for the frame_num values of reference pictures a cut
    /// dropped (H.264 8.2.5.2) instead of reporting lost pictures.
    static func allowingFrameNumGaps(_ unit: [UInt8]) -> [UInt8]? {
        guard let sps = SequenceParameterSet(unit) else { return nil }
        guard !sps.gapsInFrameNumAllowed else { return unit }
        var rbsp = RBSP.unescaped(unit.dropFirst())
        rbsp[sps.gapsBit / 8] |= 0x80 >> UInt8(sps.gapsBit % 8)
        return [unit[0]] + RBSP.escaped(rbsp)
    }

    private mutating func parse(_ r: inout SyntaxReader) throws {
        profile = try r.u("profile_idc", 8)
        constraintSet3 = try r.u("constraint_set_flags", 8) & 0x10 != 0
        level = try r.u("level_idc", 8)
        id = try r.ue("seq_parameter_set_id", in: 0...31)
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            let chroma = try r.ue("chroma_format_idc", in: 0...3)
            chromaFormat = chroma
            if chroma == 3 { separateColourPlanes = try r.flag("separate_colour_plane_flag") }
            _ = try r.ue("bit_depth_luma_minus8", in: 0...6)
            _ = try r.ue("bit_depth_chroma_minus8", in: 0...6)
            _ = try r.flag("qpprime_y_zero_transform_bypass_flag")
            if try r.flag("seq_scaling_matrix_present_flag") {
                for i in 0..<(chroma == 3 ? 12 : 8) where try r.flag("seq_scaling_list_present_flag") {
                    var last = 8, next = 8
                    for _ in 0..<(i < 6 ? 16 : 64) where next != 0 {
                        next = (last + (try r.se("delta_scale", in: -128...127)) + 256) % 256
                        last = next == 0 ? last : next
                    }
                }
            }
        }
        log2MaxFrameNum = try r.ue("log2_max_frame_num_minus4", in: 0...12) + 4
        pocType = try r.ue("pic_order_cnt_type", in: 0...2)
        switch pocType {
        case 0: log2MaxPocLsb = try r.ue("log2_max_pic_order_cnt_lsb_minus4", in: 0...12) + 4
        case 1:
            let offsets = -(1 << 31) + 1 ... (1 << 31) - 1
            _ = try r.flag("delta_pic_order_always_zero_flag")
            _ = try r.se("offset_for_non_ref_pic", in: offsets)
            _ = try r.se("offset_for_top_to_bottom_field", in: offsets)
            for _ in 0..<(try r.ue("num_ref_frames_in_pic_order_cnt_cycle", in: 0...255)) { _ = try r.se("offset_for_ref_frame", in: offsets) }
        default: break
        }
        maxNumRefFrames = try r.ue("max_num_ref_frames", in: 0...16)
        gapsBit = r.position
        gapsInFrameNumAllowed = try r.flag("gaps_in_frame_num_value_allowed_flag")
        let width = try r.ue("pic_width_in_mbs_minus1", in: 0...65535) + 1
        let heightInMapUnits = try r.ue("pic_height_in_map_units_minus1", in: 0...65535) + 1
        frameMBsOnly = try r.flag("frame_mbs_only_flag")
        frameMBs = width * heightInMapUnits * (frameMBsOnly ? 1 : 2)
        if !frameMBsOnly { _ = try r.flag("mb_adaptive_frame_field_flag") }
        _ = try r.flag("direct_8x8_inference_flag")
        if try r.flag("frame_cropping_flag") {
            for name in ["frame_crop_left_offset", "frame_crop_right_offset", "frame_crop_top_offset", "frame_crop_bottom_offset"] {
                _ = try r.ue(name, in: 0...(1 << 20))
            }
        }
        guard try r.flag("vui_parameters_present_flag") else { return }
        maxDecFrameBuffering = try Self.vuiBuffering(&r)
    }

    /// `max_dec_frame_buffering` from the VUI (E.1.1), or nil without a bitstream restriction.
    private static func vuiBuffering(_ r: inout SyntaxReader) throws -> Int? {
        if try r.flag("aspect_ratio_info_present_flag"), try r.u("aspect_ratio_idc", 8) == 255 {
            _ = try r.u("sar_width", 16)
            _ = try r.u("sar_height", 16)
        }
        if try r.flag("overscan_info_present_flag") { _ = try r.flag("overscan_appropriate_flag") }
        if try r.flag("video_signal_type_present_flag") {
            _ = try r.u("video_format", 3)
            _ = try r.flag("video_full_range_flag")
            if try r.flag("colour_description_present_flag") {
                for name in ["colour_primaries", "transfer_characteristics", "matrix_coefficients"] { _ = try r.u(name, 8) }
            }
        }
        if try r.flag("chroma_loc_info_present_flag") {
            _ = try r.ue("chroma_sample_loc_type_top_field", in: 0...5)
            _ = try r.ue("chroma_sample_loc_type_bottom_field", in: 0...5)
        }
        if try r.flag("timing_info_present_flag") {
            _ = try r.u("num_units_in_tick", 32)
            _ = try r.u("time_scale", 32)
            _ = try r.flag("fixed_frame_rate_flag")
        }
        var hrd = false
        for name in ["nal_hrd_parameters_present_flag", "vcl_hrd_parameters_present_flag"] where try r.flag(name) {
            hrd = true
            try skipHRD(&r)
        }
        if hrd { _ = try r.flag("low_delay_hrd_flag") }
        _ = try r.flag("pic_struct_present_flag")
        guard try r.flag("bitstream_restriction_flag") else { return nil }
        _ = try r.flag("motion_vectors_over_pic_boundaries_flag")
        _ = try r.ue("max_bytes_per_pic_denom", in: 0...16)
        _ = try r.ue("max_bits_per_mb_denom", in: 0...16)
        _ = try r.ue("log2_max_mv_length_horizontal", in: 0...16)
        _ = try r.ue("log2_max_mv_length_vertical", in: 0...16)
        _ = try r.ue("max_num_reorder_frames", in: 0...16)
        return try r.ue("max_dec_frame_buffering", in: 0...16)
    }

    /// `hrd_parameters()` (E.1.2): read past.
    private static func skipHRD(_ r: inout SyntaxReader) throws {
        let count = try r.ue("cpb_cnt_minus1", in: 0...31) + 1
        _ = try r.u("bit_rate_scale", 4)
        _ = try r.u("cpb_size_scale", 4)
        for _ in 0..<count {
            _ = try r.ue("bit_rate_value_minus1", in: 0...0xFFFF_FFFE)
            _ = try r.ue("cpb_size_value_minus1", in: 0...0xFFFF_FFFE)
            _ = try r.flag("cbr_flag")
        }
        for name in ["initial_cpb_removal_delay_length_minus1", "cpb_removal_delay_length_minus1", "dpb_output_delay_length_minus1", "time_offset_length"] {
            _ = try r.u(name, 5)
        }
    }
}
