/// Replaces NaN and infinite input samples with silence before they reach Rubber Band,
/// libswresample or the mixer, and counts them.
///
/// One NaN in a float file made half of a spectral stretch NaN (Rubber Band's phase vocoder
/// carries it from block to block), and Rubber Band 3.1.2 printed a `WARNING: MovingMedian`
/// line to `std::cerr` per block, whatever its debug level. Silence in their place is what a
/// player makes of them.
///
/// The check is one branch-free pass per block (an OR of each sample's exponent bits, which
/// the compiler vectorises); only a block that holds such a sample is looked at again. Each
/// bad sample is counted once, however often it is read (a study pass, a neighbour's context):
/// its position is remembered, up to ``remembered`` positions.
struct NonFiniteSamples {
    /// Positions (frame × channels + channel) already counted.
    private var seen: Set<Int64> = []
    /// Bad samples beyond what ``seen`` holds (each may have been counted more than once).
    private var uncounted = 0
    private var reported = 0
    static let remembered = 1 << 16

    /// Silences every NaN and infinity among `count` frames of `buffer`, which were read from
    /// source frame `position` on.
    mutating func scrub(_ buffer: inout [[Float]], count: Int, at position: Int64) {
        let channels = Int64(buffer.count)
        for c in buffer.indices {
            buffer[c].withUnsafeMutableBufferPointer { plane in
                guard let base = plane.baseAddress, Self.holdsNonFinite(base, count: count) else { return }
                for i in 0..<count where !base[i].isFinite {
                    base[i] = 0
                    let key = (position &+ Int64(i)) &* channels &+ Int64(c)
                    if seen.count < Self.remembered { seen.insert(key) } else if !seen.contains(key) { uncounted += 1 }
                }
            }
        }
    }

    /// Whether any of `count` samples is NaN or infinite: its exponent bits all set, which
    /// makes `exponent + 0x0080_0000` reach the sign bit.
    static func holdsNonFinite(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Bool {
        var any: UInt32 = 0
        for i in 0..<count { any |= (samples[i].bitPattern & 0x7F80_0000) &+ 0x0080_0000 }
        return any & 0x8000_0000 != 0
    }

    /// How many bad samples were replaced since the last call, or nil if none.
    mutating func takeNewCount() -> Int? {
        let total = seen.count + uncounted
        defer { reported = total }
        return total > reported ? total - reported : nil
    }
}
