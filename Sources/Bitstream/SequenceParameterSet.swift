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
        var r = ExpGolombReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? parse(&r)) != nil else { return nil }
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

    private mutating func parse(_ r: inout ExpGolombReader) throws {
        profile = try r.bits(8)
        constraintSet3 = try r.bits(8) & 0x10 != 0
        level = try r.bits(8)
        id = try r.ue()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            let chroma = try r.ue()
            chromaFormat = chroma
            if chroma == 3 { separateColourPlanes = try r.bits(1) == 1 }
            _ = try r.ue(); _ = try r.ue(); _ = try r.bits(1)
            if try r.bits(1) == 1 {
                for i in 0..<(chroma == 3 ? 12 : 8) where try r.bits(1) == 1 {
                    var last = 8, next = 8
                    for _ in 0..<(i < 6 ? 16 : 64) where next != 0 {
                        next = (last + (try r.se()) + 256) % 256
                        last = next == 0 ? last : next
                    }
                }
            }
        }
        log2MaxFrameNum = try r.ue() + 4
        pocType = try r.ue()
        switch pocType {
        case 0: log2MaxPocLsb = try r.ue() + 4
        case 1:
            _ = try r.bits(1); _ = try r.se(); _ = try r.se()
            for _ in 0..<(try r.ue()) { _ = try r.se() }
        default: break
        }
        maxNumRefFrames = try r.ue()
        gapsBit = r.position
        gapsInFrameNumAllowed = try r.bits(1) == 1
        let width = try r.ue() + 1, heightInMapUnits = try r.ue() + 1
        frameMBsOnly = try r.bits(1) == 1
        frameMBs = width * heightInMapUnits * (frameMBsOnly ? 1 : 2)
        if !frameMBsOnly { _ = try r.bits(1) }
        _ = try r.bits(1)
        if try r.bits(1) == 1 { for _ in 0..<4 { _ = try r.ue() } }
        guard try r.bits(1) == 1 else { return }
        maxDecFrameBuffering = try Self.vuiBuffering(&r)
    }

    /// `max_dec_frame_buffering` from the VUI, or nil without a bitstream restriction.
    private static func vuiBuffering(_ r: inout ExpGolombReader) throws -> Int? {
        if try r.bits(1) == 1, try r.bits(8) == 255 { _ = try r.bits(32) }
        if try r.bits(1) == 1 { _ = try r.bits(1) }
        if try r.bits(1) == 1 {
            _ = try r.bits(4)
            if try r.bits(1) == 1 { _ = try r.bits(24) }
        }
        if try r.bits(1) == 1 { _ = try r.ue(); _ = try r.ue() }
        if try r.bits(1) == 1 { _ = try r.bits(32); _ = try r.bits(32); _ = try r.bits(1) }
        var hrd = false
        for _ in 0..<2 where try r.bits(1) == 1 {
            hrd = true
            let count = try r.ue() + 1
            _ = try r.bits(8)
            for _ in 0..<count { _ = try r.ue(); _ = try r.ue(); _ = try r.bits(1) }
            _ = try r.bits(20)
        }
        if hrd { _ = try r.bits(1) }
        _ = try r.bits(1)
        guard try r.bits(1) == 1 else { return nil }
        _ = try r.bits(1)
        for _ in 0..<5 { _ = try r.ue() }
        return try r.ue()
    }
}
