/// The NAL units of an Annex B byte stream (ITU-T H.264 and H.265 Annex B), without their start
/// codes: each unit starts after a `00 00 01` and ends where the next start code begins (a zero
/// byte before the next `00 00 01` is that start code's, a 4-byte one). Bytes before the first
/// start code are not a unit. The one place start codes are looked for.
public struct AnnexBUnits: Sequence, IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next unit's payload starts, or nil when no start code is left.
    private var payload: Int?

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        payload = Self.startCode(in: bytes, from: 0)?.payload
    }

    public mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard let start = payload else { return nil }
        let following = Self.startCode(in: bytes, from: start)
        payload = following?.payload
        let end = following?.code ?? bytes.count
        return UnsafeBufferPointer(rebasing: bytes[start ..< Swift.max(start, end)])
    }

    /// The first start code at or after `from`: where it begins (its leading zero byte when
    /// it has four) and where its unit's payload starts.
    private static func startCode(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> (code: Int, payload: Int)? {
        var i = from
        while i + 2 < bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                return (i > 0 && bytes[i - 1] == 0 ? i - 1 : i, i + 3)
            }
            i += 1
        }
        return nil
    }

    /// The units of `bytes`, copied.
    public static func units(_ bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        AnnexBUnits(bytes).map(Array.init)
    }

    /// `units` as an Annex B byte stream with 4-byte start codes.
    public static func stream(_ units: [[UInt8]]) -> [UInt8] {
        units.reduce(into: []) { out, unit in
            out += [0, 0, 0, 1]
            out += unit
        }
    }
}
