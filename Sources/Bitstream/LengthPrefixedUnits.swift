/// The NAL units of a sample stored with length prefixes (ISO/IEC 14496-15: mp4 and Matroska
/// samples, whose configuration record, ``ParameterSets`` or ``HEVCParameterSets``, gives the
/// prefix size), without their prefixes. The one place such samples are split.
///
/// Iteration stops at a zero length or at a unit that runs past the sample's end; with
/// `keepingCutShort` such a last unit is given cut short at the end, so that its header can
/// still be read (a damaged packet's picture type).
public struct LengthPrefixedUnits: Sequence, IteratorProtocol {
    private let sample: UnsafeBufferPointer<UInt8>
    private let lengthSize: Int
    private let keepingCutShort: Bool
    private var at = 0

    public init(_ sample: UnsafeBufferPointer<UInt8>, lengthSize: Int, keepingCutShort: Bool = false) {
        self.sample = sample
        self.lengthSize = lengthSize
        self.keepingCutShort = keepingCutShort
    }

    public mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard lengthSize > 0, at + lengthSize < sample.count else { return nil }
        var length = 0
        for k in 0..<lengthSize { length = length << 8 | Int(sample[at + k]) }
        let start = at + lengthSize
        guard length > 0 else {
            at = sample.count
            return nil
        }
        guard start + length <= sample.count else {
            at = sample.count
            return keepingCutShort ? UnsafeBufferPointer(rebasing: sample[start...]) : nil
        }
        at = start + length
        return UnsafeBufferPointer(rebasing: sample[start ..< at])
    }

    /// `units` as a sample, each after a `lengthSize`-byte big-endian length.
    public static func sample(_ units: [[UInt8]], lengthSize: Int) -> [UInt8] {
        var out: [UInt8] = []
        for unit in units {
            for k in (0..<lengthSize).reversed() { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
            out += unit
        }
        return out
    }
}
