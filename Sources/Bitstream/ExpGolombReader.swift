/// Reads bits, most significant first, and Exp-Golomb codes (H.264 9.1) from a byte array; past
/// the end it throws.
struct ExpGolombReader {
    struct End: Error {}
    private let bytes: [UInt8]
    /// Bits read so far.
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bits left to read.
    var remaining: Int { bytes.count * 8 - position }

    mutating func bits(_ count: Int) throws -> Int {
        var value = 0
        for _ in 0..<count {
            guard position / 8 < bytes.count else { throw End() }
            value = value << 1 | Int(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
            position += 1
        }
        return value
    }

    mutating func ue() throws -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros < 32 else { throw End() }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    mutating func se() throws -> Int {
        let k = try ue()
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
