import Foundation

/// What a segment reads past an edge of its own source (``TimelineRenderer/Plan/own``): its own
/// audio next to that edge looped, one period over and over, held for the warm-up and then
/// faded out over 20 ms (a ``BackgroundTail`` whose samples are the loop).
///
/// The period is the lag, 2.5 to 50 ms, at which the 20 ms next to the edge best match
/// themselves, so a steady tone or chord carries on with its level, spectrum and phase (where
/// the period is a whole number of frames, exactly), as the neighbour's audio did when the
/// stretchers read it. Measured on a 440 Hz tone slowed 4x between 1x copies (joinsAreSeamless):
/// a linear prediction held for the warm-up drifts within a few milliseconds and beats, and R2
/// warmed up on it started at 0.078 RMS (of 0.35) and took 40 ms to recover, and ended at 0.045;
/// looped, 0.34 at both joins (R3 0.34). A ramp ending at 1/4 read a 20 ms prediction past its
/// end, and R3 dimmed its last 50 ms by 4.9 dB; looped, it holds within 0.5 dB.
/// Audio past the far edge of its own source never enters the loop.
extension BackgroundTail {
    /// Backwards (a head, before `own`), the same over its first frames reversed.
    static func looped(at edge: Int64, source: AudioSource, within own: Range<Int64>, backwards: Bool, hold: Int) throws -> BackgroundTail {
        let format = source.format
        let ms = max(1, format.sampleRate / 1000)
        let faded = fade * ms, length = hold + faded
        let window = 20 * ms, minLag = max(1, 5 * ms / 2), maxLag = 50 * ms
        let available = Int(min(Int64(window + maxLag), own.upperBound - own.lowerBound))
        var audio = [[Float]](repeating: [Float](repeating: 0, count: max(1, available)), count: format.channels)
        if available > 0 {
            try source.read(at: backwards ? own.lowerBound : own.upperBound - Int64(available), count: available, into: &audio)
        }
        // Oldest first, the edge last (a head's audio reversed).
        let near = audio.map { channel in (backwards ? Array(channel.reversed()) : channel).map { $0.isFinite ? Double($0) : 0 } }
        let n = available
        var best = max(1, n), bestScore = -Double.infinity
        let w = min(window, n / 2)
        if w > 0 {
            for lag in minLag...max(minLag, min(maxLag, n - w)) where lag + w <= n {
                var dot = 0.0, e1 = 0.0, e2 = 0.0
                for x in near {
                    for i in (n - w)..<n { dot += x[i] * x[i - lag]; e1 += x[i] * x[i]; e2 += x[i - lag] * x[i - lag] }
                }
                let score = dot / max(1e-12, (e1 * e2).squareRoot())
                if score > bestScore { bestScore = score; best = lag }
            }
        }
        let period = max(1, min(best, n))
        // The period's last frames fade into those a period earlier, so that it ends on the
        // frame before its first and repeats with no step (a sweep's loop clicked at each turn).
        let overlap = n >= 2 * period ? min(period / 2, 5 * ms / 2) : 0
        let samples = near.map { x -> [Float] in
            guard n > 0 else { return [Float](repeating: 0, count: length) }
            let loop = (0..<period).map { j -> Double in
                let into = j - (period - overlap)
                guard into >= 0 else { return x[n - period + j] }
                let w = 0.5 - 0.5 * cos(Double.pi * Double(into + 1) / Double(overlap))
                return (1 - w) * x[n - period + j] + w * x[n - 2 * period + j]
            }
            return (0..<length).map { k in
                let gain = k < hold ? 1 : 0.5 + 0.5 * cos(Double.pi * Double(k - hold) / Double(faded))
                return Float(loop[k % period] * gain)
            }
        }
        return BackgroundTail(start: edge, backwards: backwards, samples: samples)
    }

    /// The loop (`self`) as it is where it carries on from the edge: where its first frame
    /// follows the edge's (`prediction`'s first frame, continuous with the edge) to within a
    /// tenth of the loop's typical step from one frame to the next, as on a steady tone whose
    /// period the loop found. Elsewhere (a sweep, whose loop does not continue the edge, and the
    /// copy's closing fade played the step: a click 650-8600x the high-band energy around the
    /// join, ReverseExportTests) `prediction` for the first `width` frames, crossfading into the
    /// loop over them. Not always: R2 warmed up on a tone's loop with 2.5 ms of prediction
    /// blended in (the two within 1e-5 at the seam) dimmed a ramp's tone by 3.3 dB, and 0.16 dB
    /// on the bare loop (RampJoinTests).
    func joined(to prediction: BackgroundTail, width: Int) -> BackgroundTail {
        let frames = 20 * width / 5
        let steps = zip(prediction.samples, samples).map { p, l -> Bool in
            guard let first = p.first, l.count > frames else { return false }
            var d = 0.0
            for i in 1..<frames { d += Double(l[i] - l[i - 1]) * Double(l[i] - l[i - 1]) }
            return Double(abs(first - l[0])) > 0.1 * (d / Double(frames - 1)).squareRoot()
        }
        return steps.contains(true) ? prediction.blended(into: self, width: width) : self
    }

    /// `self` (a prediction, continuous with the edge) for the first `width` frames from the
    /// edge, crossfading into `other` (the loop) over them.
    func blended(into other: BackgroundTail, width: Int) -> BackgroundTail {
        let samples = zip(samples, other.samples).map { a, b in
            (0..<b.count).map { n -> Float in
                let w = n < width ? Float(0.5 + 0.5 * cos(Double.pi * Double(n) / Double(width))) : 0
                return (n < a.count ? a[n] : 0) * w + b[n] * (1 - w)
            }
        }
        return BackgroundTail(start: start, backwards: backwards, samples: samples)
    }
}
