/// A source read backwards, for the segments of a timeline that play their audio in reverse.
///
/// ``TimelineRenderer`` lays a reversed segment out over *mirrored* frames: mirrored frame `v`
/// is source frame `pivot - 1 - v`, so source frames `[a, b)` are mirrored frames
/// `[pivot - b, pivot - a)` and reading them forwards plays the source from `b` down to `a`.
/// Every kernel then works as for forward audio: its context before the segment is the source
/// after `b` (what plays before a reversed stretch, had the reverse begun earlier), its fades,
/// onsets and a ramp's joined steps (consecutive reversed steps continue each other in
/// mirrored frames, since one pivot serves them all) need nothing of their own.
///
/// ```
///   source     [a ─────────────── b)
///   mirrored   [pivot-b ───── pivot-a)    frame pivot-b is source frame b-1
/// ```
final class ReversedAudioSource: AudioSource {
    /// The mirror: far beyond any real source frame (2^40 frames is 264 days at 48 kHz), so
    /// that mirrored frames never meet forward ones.
    static let pivot: Int64 = 1 << 40

    let base: AudioSource
    var format: AudioFormat { base.format }

    init(_ base: AudioSource) {
        self.base = base
    }

    /// The mirrored frames of source frames `range`.
    static func mirrored(_ range: Range<Int64>) -> Range<Int64> {
        (pivot - range.upperBound)..<(pivot - range.lowerBound)
    }

    /// The first source frame that mirrored frames `[frame, frame + count)` read.
    static func sourceStart(ofMirrored frame: Int64, count: Int) -> Int64 {
        pivot - frame - Int64(count)
    }

    func read(at frame: Int64, count: Int, into buffer: inout [[Float]]) throws {
        try base.read(at: Self.sourceStart(ofMirrored: frame, count: count), count: count, into: &buffer)
        Self.reverse(&buffer, count: count)
    }

    /// Reverses the first `count` frames of every channel of `buffer` in place.
    static func reverse(_ buffer: inout [[Float]], count: Int) {
        for c in buffer.indices {
            buffer[c].withUnsafeMutableBufferPointer { plane in
                guard count > 1 else { return }
                var i = 0, j = count - 1
                while i < j {
                    plane.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
        }
    }
}
