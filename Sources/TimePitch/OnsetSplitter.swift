import Composition
import Foundation

/// Where ``TimelineRenderer`` splits slowed stretched segments so that attacks land on time.
extension TimelineRenderer {
    /// Splits slowed-down stretched segments at attacks, over silence or over what was already
    /// playing (``OnsetDetector``). A phase vocoder smears an attack
    /// backwards by up to half its analysis window times the time ratio: Rubber Band R3 starts
    /// a beep slowed 4x about 28 ms early, so a drum hit or a beep would sound before the frame
    /// that shows it. Each onset instead starts a new piece, rendered with the audio before it as
    /// warm-up but heard only from the onset on, while the piece before it reads silence past
    /// the onset and fades out over the last millisecond. The attack lands on its sample.
    func splitAtOnsets(_ plans: [Plan], source: AudioSource) throws -> [Plan] {
        guard splitsAtOnsets else { return plans }
        var result: [Plan] = []
        for plan in plans {
            guard plan.kind == .stretch, plan.outCount > plan.sourceCount, plan.rate != nil || !plan.keyFrames.isEmpty else {
                result.append(plan)
                continue
            }
            let rate = plan.rate
            // Onsets inside the segment split it; the first one in the audio read past its end
            // (the next segment's attack) is kept out of its context.
            let ratio = Double(plan.outCount) / Double(plan.sourceCount)
            let context = plan.keyFrames.isEmpty ? context(plan, ratio: ratio)
                : { let c = steppedContext(plan); return (c.first, c.count, c.outputOrigin) }()
            let margin = Int64(format.sampleRate / 20), shortest = Int64(format.sampleRate / 100)
            let onsets = try findOnsets(from: plan.sourceStart + margin, to: context.first + Int64(context.count), source: source)
            var piece = plan
            piece.silentFrom = onsets.first { $0 >= plan.sourceEnd }
            for onset in onsets where onset < plan.sourceEnd - shortest {
                // The onset's exact output position, from the segment's exact rate (or its
                // step's, in joined ramp steps).
                let out: Int64
                if let rate {
                    let offset = Int128(onset - plan.sourceStart) * Int128(rate.denominator)
                    out = plan.outStart + Int64((offset + Int128(rate.numerator) / 2) / Int128(rate.numerator))
                } else {
                    out = outputPosition(of: onset, in: plan)
                }
                var before = Plan(kind: .stretch, outStart: piece.outStart, outEnd: out, sourceStart: piece.sourceStart,
                                  sourceEnd: onset, rate: rate)
                before.keyFrames = piece.keyFrames.filter { $0.source > piece.sourceStart && $0.source < onset }
                before.fadeIn = piece.fadeIn
                before.fadeOut = max(1, format.sampleRate / 1000)
                before.endsAtOnset = true
                before.silentFrom = onset
                before.reversed = plan.reversed
                result.append(before)
                piece = Plan(kind: .stretch, outStart: out, outEnd: plan.outEnd, sourceStart: onset,
                             sourceEnd: plan.sourceEnd, rate: rate)
                piece.keyFrames = plan.keyFrames.filter { $0.source > onset && $0.source < plan.sourceEnd }
                piece.fadeOut = plan.fadeOut
                piece.silentFrom = onsets.first { $0 >= plan.sourceEnd }
                piece.reversed = plan.reversed
            }
            result.append(piece)
        }
        return result
    }

    /// Source frames in `[from, to)` where an attack starts over what plays before it (see
    /// ``OnsetDetector``), at least 50 ms apart.
    func findOnsets(from: Int64, to last: Int64, source: AudioSource) throws -> [Int64] {
        let detector = OnsetDetector(sampleRate: format.sampleRate, channels: format.channels)
        return try detector.onsets(from: from, to: last, spacing: Int64(format.sampleRate / 20), blockSize: blockSize, source: source)
    }
}
