/// The fields of an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1 and E.1.1) that a smart
/// cut's re-encoded pictures must agree with: whether pictures are frames only (not fields), how
/// many reference frames the stream keeps, and its decoded picture buffer size
/// (`max_dec_frame_buffering`). A decoder may discard the pictures it still holds for reordering
/// when an IDR activates an SPS whose buffer size differs (H.264 C.4.4, "no_output_of_prior_pics
/// may be inferred"), and OpenH264 2.3 does: it dropped the two B-frames before each re-encoded
/// span until the new SPS declared the stream's buffer size (x264's `ref` sets both).
struct SequenceParameterSet: Equatable {
    let frameMBsOnly: Bool
    let maxNumRefFrames: Int
    /// Nil when the SPS has no bitstream restriction (the level's maximum then applies).
    let maxDecFrameBuffering: Int?

    /// Parses a NAL unit (header byte first); nil when it is not a readable SPS.
    init?(_ unit: [UInt8]) {
        guard unit.count > 4, unit[0] & 0x1F == 7 else { return nil }
        var r = ExpGolombReader(Self.unescaped(unit.dropFirst()))
        guard let parsed = try? Self.parse(&r) else { return nil }
        (frameMBsOnly, maxNumRefFrames, maxDecFrameBuffering) = parsed
    }

    /// The RBSP: the NAL unit's payload without its emulation-prevention bytes (00 00 03).
    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }

    private static func parse(_ r: inout ExpGolombReader) throws -> (Bool, Int, Int?) {
        let profile = try r.bits(8)
        _ = try r.bits(16)
        _ = try r.ue()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            let chroma = try r.ue()
            if chroma == 3 { _ = try r.bits(1) }
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
        _ = try r.ue()
        switch try r.ue() {
        case 0: _ = try r.ue()
        case 1:
            _ = try r.bits(1); _ = try r.se(); _ = try r.se()
            for _ in 0..<(try r.ue()) { _ = try r.se() }
        default: break
        }
        let refs = try r.ue()
        _ = try r.bits(1); _ = try r.ue(); _ = try r.ue()
        let frameMBsOnly = try r.bits(1) == 1
        if !frameMBsOnly { _ = try r.bits(1) }
        _ = try r.bits(1)
        if try r.bits(1) == 1 { for _ in 0..<4 { _ = try r.ue() } }
        guard try r.bits(1) == 1 else { return (frameMBsOnly, refs, nil) }
        return (frameMBsOnly, refs, try vuiBuffering(&r))
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
