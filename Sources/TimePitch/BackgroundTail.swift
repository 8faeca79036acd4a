import Foundation

/// What a piece that ends at an onset (see ``TimelineRenderer/splitAtOnsets(_:source:)``)
/// reads past it instead of the onset: the background before the onset predicted on, fading
/// out over 20 ms, then silence.
///
/// Silence from the onset on stopped the background dead, and a phase vocoder smears a stop
/// like an attack: R2 slowed 8x turned a 300 Hz tone's stop into 2 kHz hash 30 dB under a beep
/// 6 dB above the tone, heard up to 100 ms before the beep. A linear prediction fitted to the
/// 20 ms before the onset carries a tone or a chord on without a step, and its fade is too slow
/// to splash: that hash fell from -29.4 to -42.1 dB of the beep (OnsetOverBackgroundTests).
struct BackgroundTail {
    /// The onset: the first frame read from this tail instead of the source.
    let start: Int64
    /// Per channel, the faded prediction from `start` on; silence after it.
    private let samples: [[Float]]

    /// Prediction order, and the milliseconds fitted and faded over.
    static let order = 16, fitted = 20, fade = 20

    init(onset: Int64, source: AudioSource) throws {
        start = onset
        let format = source.format
        let ms = max(1, format.sampleRate / 1000)
        let fit = Self.fitted * ms, length = Self.fade * ms, order = Self.order
        var history = [[Float]](repeating: [Float](repeating: 0, count: fit + order), count: format.channels)
        try source.read(at: onset - Int64(fit + order), count: fit + order, into: &history)
        samples = history.map { channel in
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
    /// past the onset with the tail.
    func fill(_ buffer: inout [[Float]], at position: Int64, count: Int) {
        let from = Int(max(0, start - position))
        guard from < count else { return }
        for c in buffer.indices {
            for i in from..<count {
                let t = position + Int64(i) - start
                buffer[c][i] = t < Int64(samples[c].count) ? samples[c][Int(t)] : 0
            }
        }
    }
}
