import Foundation

/// What a piece that ends at an onset (see ``TimelineRenderer/splitAtOnsets(_:source:)``) reads
/// past it instead of the source: the audio before it predicted on, fading out over 20 ms, then
/// silence, so the onset cannot leak into it. (Past the edges of a segment's own source, the
/// samples are its own audio looped instead: see ``looped(at:source:within:backwards:hold:)``.)
///
/// Silence from the onset on stopped the background dead, and a phase vocoder smears a stop
/// like an attack: R2 slowed 8x turned a 300 Hz tone's stop into 2 kHz hash 30 dB under a beep
/// 6 dB above the tone, heard up to 100 ms before the beep. A linear prediction fitted to the
/// 20 ms before the onset carries a tone or a chord on without a step, and its fade is too slow
/// to splash: that hash fell from -29.4 to -42.1 dB of the beep (OnsetOverBackgroundTests).
struct BackgroundTail {
    /// The onset: the first frame read from this tail instead of the source.
    let start: Int64
    /// Per channel, the faded samples from `start` on (going back, for a head); silence after.
    let samples: [[Float]]

    /// Prediction order, and the milliseconds fitted and faded over.
    static let order = 16, fitted = 20, fade = 20

    /// Whether this is a head: filling the frames before `start`, the nearest first (a
    /// segment's warm-up before its own source, which must not be a neighbour's).
    let backwards: Bool

    /// A fill made elsewhere (see ``looped(at:source:within:backwards:hold:)``).
    init(start: Int64, backwards: Bool, samples: [[Float]]) {
        self.start = start
        self.backwards = backwards
        self.samples = samples
    }

    /// The tail after `onset`, predicted from the audio before it but never from frames before
    /// `floor` (the start of the segment's own source), which count as silence.
    init(onset: Int64, source: AudioSource, floor: Int64 = .min) throws {
        start = onset
        backwards = false
        let count = Self.historyLength(source.format)
        var history = [[Float]](repeating: [Float](repeating: 0, count: count), count: source.format.channels)
        let first = onset - Int64(count)
        try source.read(at: first, count: count, into: &history)
        if first < floor {
            for c in history.indices { for i in 0..<Int(min(floor - first, Int64(count))) { history[c][i] = 0 } }
        }
        samples = Self.predicted(history, format: source.format)
    }

    /// The head before `start`: the audio from `start` on (never from `ceiling` on) predicted
    /// backwards and faded out going back, continuous with `start`'s frame (see ``looped``).
    init(before start: Int64, source: AudioSource, ceiling: Int64) throws {
        self.start = start
        backwards = true
        let count = Self.historyLength(source.format)
        var history = [[Float]](repeating: [Float](repeating: 0, count: count), count: source.format.channels)
        try source.read(at: start, count: count, into: &history)
        if start + Int64(count) > ceiling {
            for c in history.indices { for i in Int(max(0, ceiling - start))..<count { history[c][i] = 0 } }
        }
        samples = Self.predicted(history.map { Array($0.reversed()) }, format: source.format)
    }

    private static func historyLength(_ format: AudioFormat) -> Int { fitted * max(1, format.sampleRate / 1000) + order }

    /// Per channel, `history` (oldest first) predicted on and faded out.
    private static func predicted(_ history: [[Float]], format: AudioFormat) -> [[Float]] {
        let length = fade * max(1, format.sampleRate / 1000)
        return history.map { channel in
            // What is not finite reads as silence everywhere else (NonFiniteSamples).
            var y = channel.map { $0.isFinite ? Double($0) : 0 }
            let a = OnsetDetector.predictor(Array(y[order...]), order: order)
            var tail = [Float](repeating: 0, count: length)
            for n in 0..<length {
                var next = 0.0
                for k in 1...order { next -= a[k] * y[y.count - k] }
                y.append(next)
                // Raised-cosine fade from 1 at the onset to 0 after `length` frames.
                let gain = 0.5 + 0.5 * cos(Double.pi * Double(n) / Double(length))
                tail[n] = Float(max(-1, min(1, next * gain)))
            }
            return tail
        }
    }

    /// Overwrites the frames of `buffer` (read from source frame `position` on) that lie at or
    /// past the onset (before `start`, for a head) with the samples.
    func fill(_ buffer: inout [[Float]], at position: Int64, count: Int) {
        let range = backwards ? 0..<Int(min(Int64(count), max(0, start - position)))
            : Int(min(Int64(count), max(0, start - position)))..<count
        for c in buffer.indices {
            for i in range {
                let t = backwards ? start - 1 - (position + Int64(i)) : position + Int64(i) - start
                buffer[c][i] = t < Int64(samples[c].count) ? samples[c][Int(t)] : 0
            }
        }
    }
}
