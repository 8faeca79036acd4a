/// Writes bits, most significant first, and Exp-Golomb codes (H.264 9.1): the counterpart of
/// ``ExpGolombReader`` for rewriting a slice header.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits written so far.
    private(set) var count = 0

    init() {}

    /// Appends the low `width` bits of `value` (at most 32).
    mutating func bits(_ value: Int, _ width: Int) {
        precondition(width >= 0 && width <= 32)
        var left = width
        while left > 0 {
            let used = count % 8
            if used == 0 { bytes.append(0) }
            let room = 8 - used
            let take = min(room, left)
            let chunk = (value >> (left - take)) & ((1 << take) - 1)
            bytes[bytes.count - 1] |= UInt8(chunk << (room - take))
            left -= take
            count += take
        }
    }

    mutating func ue(_ value: Int) {
        precondition(value >= 0)
        let coded = value + 1
        let length = Int.bitWidth - coded.leadingZeroBitCount
        bits(0, length - 1)
        bits(coded, length)
    }

    mutating func se(_ value: Int) {
        ue(value > 0 ? 2 * value - 1 : -2 * value)
    }

    /// Appends bits `range` of `source` (bit 0 is the first byte's most significant bit).
    mutating func copy(_ source: [UInt8], bits range: Range<Int>) {
        var at = range.lowerBound
        if at % 8 == 0 && count % 8 == 0 {
            let whole = (range.upperBound - at) / 8
            bytes += source[at / 8 ..< at / 8 + whole]
            count += whole * 8
            at += whole * 8
        }
        while at < range.upperBound {
            let take = min(8, range.upperBound - at)
            bits(Self.read(source, at: at, width: take), take)
            at += take
        }
    }

    /// Appends whole bytes; the writer must be byte-aligned.
    mutating func append<C: Collection<UInt8>>(bytes more: C) {
        precondition(count % 8 == 0)
        bytes += more
        count += more.count * 8
    }

    /// Pads with `bit` to the next byte boundary.
    mutating func align(with bit: Int) {
        while count % 8 != 0 { bits(bit, 1) }
    }

    /// `width` (at most 8) bits of `source` from bit `at`.
    static func read(_ source: [UInt8], at: Int, width: Int) -> Int {
        let byte = at / 8, shift = at % 8
        var window = Int(source[byte]) << 8
        if byte + 1 < source.count { window |= Int(source[byte + 1]) }
        return (window >> (16 - shift - width)) & ((1 << width) - 1)
    }
}
