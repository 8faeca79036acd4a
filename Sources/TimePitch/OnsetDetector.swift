import Foundation

/// Where attacks start, found against what plays before them: used by ``TimelineRenderer`` to
/// split slowed stretched segments (``TimelineRenderer/splitAtOnsets(_:source:)``).
///
/// An attack is a rise of the energy in 5 ms (stepped by 1 ms) to three times (4.8 dB) the most
/// that any 5 ms window held in the 40 ms before it, and to above -40 dBFS. Against the loudest
/// window, not the mean, a steady tone of any pitch (a 5 ms window of a 40 Hz tone holds from
/// a tenth to twice its mean) or steady noise never rises; a beep 6 dB above a tone does (its
/// window holds four times more). The attack's first sample is then found in the residual of a
/// linear prediction fitted to the 20 ms before: the background (a tone, a chord) is
/// predicted away and the new sound stands out from its first sample, whatever its level.
struct OnsetDetector {
    let sampleRate: Int
    let channels: Int
    /// Energy rise (as a factor) over the loudest preceding window that makes an attack.
    var rise: Float = 3
    /// The least window energy (mean square) of an attack: -40 dBFS.
    var floor: Float = 1e-4
    /// Prediction order for the residual.
    var order = 16

    var millisecond: Int { max(1, sampleRate / 1000) }
    /// Milliseconds: the window, and the background compared with.
    let window = 5, background = 40
    /// How far before `from` reading starts, so that the first windows have a background.
    var history: Int64 { Int64((window + background) * millisecond) }

    /// Source frames in `[from, last)` where an attack starts, at least `spacing` apart. (The
    /// 45 ms before `from` are read as the first windows' background.)
    func onsets(from: Int64, to last: Int64, spacing: Int64, blockSize: Int, source: AudioSource) throws -> [Int64] {
        let ms = millisecond
        let first = from - history
        var onsets: [Int64] = []
        // Energy per millisecond (mean square), and the 5 ms windows ending at each.
        var energies: [Float] = [], windows: [Float] = []
        var block = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: channels)
        var position = first
        var lastOnset: Int64?
        while position + Int64(ms) <= last {
            let steps = min(blockSize / ms, Int((last - position) / Int64(ms)))
            guard steps > 0 else { break }
            try source.read(at: position, count: steps * ms, into: &block)
            for h in 0..<steps {
                var energy: Float = 0
                for c in 0..<channels { for i in (h * ms)..<((h + 1) * ms) { energy += block[c][i] * block[c][i] } }
                energies.append(energy / Float(ms * channels))
                guard energies.count >= window else { continue }
                let current = energies.suffix(window).reduce(0, +) / Float(window)
                windows.append(current)
                // The windows that end before this one starts.
                let earlier = windows.dropLast(window).suffix(background - window + 1)
                let end = position + Int64((h + 1) * ms)
                if earlier.count > background / 2, current > floor, current > rise * (earlier.max() ?? 0),
                   end - Int64(window * ms) >= from, lastOnset.map({ end - $0 >= spacing }) ?? true {
                    let at = try firstSample(before: end, source: source)
                    // An attack that starts before `from` is not one: where a segment starts
                    // after a cut, what plays before it in the source is not heard, and the
                    // segment's own start would otherwise hold off its first attack.
                    if lastOnset.map({ at - $0 >= spacing }) ?? true, at >= from, at < last {
                        onsets.append(at)
                        lastOnset = at
                    }
                }
                if energies.count > 4 * background { energies.removeFirst(energies.count - window) }
                if windows.count > 4 * background { windows.removeFirst(windows.count - background - window) }
            }
            position += Int64(steps * ms)
        }
        return onsets
    }

    /// The first sample of the attack whose 5 ms window ends at `end`: where the residual of a
    /// prediction fitted to the 20 ms before that window first stands above the residual
    /// there (eight times its mean square, above -50 dBFS and within 20 dB of the attack), for
    /// 16 samples.
    func firstSample(before end: Int64, source: AudioSource) throws -> Int64 {
        let ms = millisecond
        let searchStart = end - Int64((window + 1) * ms)
        let fit = 20 * ms
        let readStart = searchStart - Int64(fit + order)
        let count = Int(end - readStart) + 16
        var samples = [[Float]](repeating: [Float](repeating: 0, count: count), count: channels)
        try source.read(at: readStart, count: count, into: &samples)
        // Residual energy per sample, summed over channels, from `order` on.
        var residual = [Double](repeating: 0, count: count)
        for c in 0..<channels {
            let x = samples[c].map(Double.init)
            let a = Self.predictor(Array(x[order..<(order + fit)]), order: order)
            for n in order..<count {
                var e = x[n]
                for k in 1...order { e += a[k] * x[n - k] }
                residual[n] += e * e
            }
        }
        let backgroundLevel = residual[order..<(order + fit)].reduce(0, +) / Double(fit)
        let searchFrom = order + fit
        // And within 20 dB of the attack's loudest 16 samples: a codec's pre-echo (AAC's,
        // a few ms of hash 30 dB under the attack) is not the attack; split there, the
        // stretcher smeared the beep back over it, 1.6 ms early at half speed.
        let loudest = stride(from: searchFrom, to: count - 16, by: 4).map { residual[$0..<($0 + 16)].reduce(0, +) / 16 }.max() ?? 0
        let threshold = max(8 * backgroundLevel, 1e-5 * Double(channels), loudest / 100)
        for n in searchFrom..<(count - 16) where residual[n] > threshold {
            if residual[n..<(n + 16)].reduce(0, +) / 16 > threshold { return readStart + Int64(n) }
        }
        return searchStart
    }

    /// The coefficients `a[0...order]` (a[0] = 1) of the prediction-error filter that best
    /// predicts `x` (autocorrelation method over a Hann window, Levinson-Durbin).
    static func predictor(_ x: [Double], order: Int) -> [Double] {
        let n = x.count
        let w = x.enumerated().map { i, v in v * (0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(n))) }
        var r = (0...order).map { lag in (lag..<n).reduce(0.0) { $0 + w[$1] * w[$1 - lag] } }
        // A little white floor keeps a pure tone's (singular) system solvable.
        r[0] = r[0] * (1 + 1e-9) + 1e-12
        var a = [Double](repeating: 0, count: order + 1)
        a[0] = 1
        var error = r[0]
        for i in 1...order {
            var acc = r[i]
            for j in 1..<i { acc += a[j] * r[i - j] }
            let k = -acc / error
            let previous = a
            for j in 1..<i { a[j] = previous[j] + k * previous[i - j] }
            a[i] = k
            error *= 1 - k * k
            if error <= 0 { break }
        }
        return a
    }
}
