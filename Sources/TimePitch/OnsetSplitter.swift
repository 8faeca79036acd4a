import Composition
import Foundation

/// Where ``TimelineRenderer`` splits stretched segments so that attacks land on time.
extension TimelineRenderer {
    /// Splits stretched segments (slowed, sped up, or a ramp's joined steps) at attacks, over
    /// silence or over what was already playing (``OnsetDetector``). A phase vocoder smears an attack
    /// backwards by up to half its analysis window times the time ratio: Rubber Band R3 starts
    /// a beep slowed 4x about 28 ms early, so a drum hit or a beep would sound before the frame
    /// that shows it. Each onset instead starts a new piece, rendered with the audio before it as
    /// warm-up (R3 plays it at 1x, ``onsetContext(_:ratio:)``) but heard only from the onset on,
    /// while the piece before it reads the background predicted on past the onset
    /// (``BackgroundTail``) and fades out over the last millisecond. The attack lands on its
    /// sample.
    func splitAtOnsets(_ plans: [Plan], source: AudioSource) throws -> [Plan] {
        guard splitsAtOnsets else { return plans }
        var result: [Plan] = []
        for plan in plans {
            guard plan.kind == .stretch, plan.rate != nil || !plan.keyFrames.isEmpty else {
                result.append(plan)
                continue
            }
            // Sped-up segments too: left in their run, the oracle's beep (20 ms of 1 kHz) was
            // heard 1.5-2.3 ms early at 2x (spectral; timeDomain 5-9 ms, and 4-9 ms at 1.5x),
            // and a ramp's steps joined with the rest of a 1.5x range put it 12.7 ms late
            // (spectral; timeDomain 9.7 ms early). Split, all within 0.3 ms.
            let rate = plan.rate
            // Onsets inside the segment split it, from its first frames on: a beep 40 ms into
            // a range slowed 3x, left in the segment's run, was smeared 24 ms early (R2, 44 ms).
            // Past its end it reads its own audio carried on (``Plan/own``), so the next
            // segment's attack is never in its context.
            // Up to a millisecond before its end: an onset 2.4 ms before the end of a ramp, left
            // in its run, was heard 50 ms early (the oracle's seed 0x4382cf4f8e46013e).
            let shortest = Int64(max(1, format.sampleRate / 1000))
            let onsets = try findOnsets(from: plan.sourceStart + Int64(max(1, format.sampleRate / 1000)), to: plan.sourceEnd, source: source)
                .filter { $0 < plan.sourceEnd - shortest }
            var piece = plan
            var split: [Plan] = []
            for onset in onsets {
                // The onset's exact output position, from the segment's exact rate (or its
                // step's, in joined ramp steps).
                let out: Int64
                if let rate {
                    let offset = Int128(onset - plan.sourceStart) * Int128(rate.denominator)
                    out = plan.outStart + Int64((offset + Int128(rate.numerator) / 2) / Int128(rate.numerator))
                } else {
                    out = outputPosition(of: onset, in: plan)
                }
                // The piece before must have faded in (the join's crossfade) before it fades out
                // at the onset, and the piece after must not start at full level inside the
                // join: an attack closer than that to the segment's start stays in its run, which
                // can smear it back at most to the segment's start (3.5 ms).
                let fadeOut = max(1, format.sampleRate / 1000)
                guard out - piece.outStart >= Int64(piece.fadeIn + fadeOut) else { continue }
                var before = Plan(kind: .stretch, outStart: piece.outStart, outEnd: out, sourceStart: piece.sourceStart,
                                  sourceEnd: onset, rate: rate)
                before.keyFrames = piece.keyFrames.filter { $0.source > piece.sourceStart && $0.source < onset }
                before.fadeIn = piece.fadeIn
                // A piece between two onsets starts at the first: dropped here, its beep (out of
                // AAC-coded silence, slowed 4x) reached the oracle's level 4.9 ms late.
                before.startsAtOnset = piece.startsAtOnset
                before.fadeOut = fadeOut
                before.endsAtOnset = true
                before.silentFrom = onset
                before.reversed = plan.reversed
                before.own = plan.own
                split.append(before)
                piece = Plan(kind: .stretch, outStart: out, outEnd: plan.outEnd, sourceStart: onset,
                             sourceEnd: plan.sourceEnd, rate: rate)
                piece.keyFrames = plan.keyFrames.filter { $0.source > onset && $0.source < plan.sourceEnd }
                piece.fadeOut = plan.fadeOut
                piece.startsAtOnset = true
                piece.reversed = plan.reversed
                piece.own = plan.own
            }
            split.append(piece)
            // Every piece's head (what it reads before the segment's own source) loops only
            // the audio before the segment's first attack: looped from frames that reach the
            // attack, a piece that starts at it warmed up on the attack itself (a beep 25 ms
            // into a range slowed 3x, over a noise floor, was heard at the range's start).
            if split.count > 1, let first = split.first?.sourceEnd {
                for k in split.indices { split[k].headEnd = first }
            }
            result += split
        }
        return result
    }

    /// For R3, a piece that starts at an onset: the source frames to read, the output position
    /// of the first, the overall time ratio and a key-frame map that plays the warm-up before
    /// the onset at 1x and the piece at its own ratio from the onset on.
    ///
    /// Warmed up at the piece's ratio, R3 placed the attack by where the onset fell in its
    /// analysis: slowed 4x after 2048 frames of a tone, the beep rose 14 ms early (cut off with
    /// the warm-up) and came back to half its level only 16-17 ms after the onset, and after
    /// 1024 or 1472 frames it was on time (measured with Rubber Band 3.1.2 through its C API,
    /// 6 and 18 dB over a 300 Hz tone). With the warm-up at 1x, the attack reached half its
    /// level 0.02 ms after the onset for every warm-up length tried (1024 to 2240 frames) and
    /// every ratio from 1.5 to 16. Warm-up is the same length as before: the piece's context.
    func onsetContext(_ plan: Plan, ratio: Double) -> (first: Int64, count: Int, outputOrigin: Int64, ratio: Double, map: [(input: Int, output: Int)]) {
        let (first, count, _) = context(plan, ratio: ratio)
        let before = Int(plan.sourceStart - first), after = count - before - Int(plan.sourceCount)
        let origin = plan.outStart - Int64(before)
        let map = [(input: before, output: before), (input: before + Int(plan.sourceCount), output: before + Int(plan.outCount))]
        let total = Double(before) + Double(plan.outCount) + Double(after) * ratio
        return (first, count, origin, total / Double(count), map)
    }

    /// Whether nothing plays just before `onset` (below -60 dBFS over the 40 ms that end 1024
    /// frames before it, leaving out a coded beep's own pre-echo: AAC and Opus spread an attack
    /// over the frame before it): a beep out of silence, even with another beep a while
    /// before. There the piece before the onset reads silence past it and R3 warms the piece
    /// after it up at its own ratio, which put the test clips' beeps within 1 ms of their
    /// flashes at 0.25x and 0.5x; the background carried on (``BackgroundTail``, fitted to the
    /// coded pre-echo it would find there) and the 1x warm-up (``onsetContext(_:ratio:)``)
    /// brought them 2.3 to 4.3 ms early. Those are for attacks over something playing on.
    ///
    /// Only the segment's own source (`own`) counts: what lies before it is never heard before
    /// the piece (a cut's removed audio), and its warm-up there loops the segment's own audio
    /// before the onset (see ``Plan/headEnd``). An onset within 1024 frames of the segment's
    /// start has nothing before it but what may be its own coded pre-echo: quiet.
    func isQuiet(before onset: Int64, within own: Range<Int64>, source: AudioSource) throws -> Bool {
        let end = onset - 1024
        let start = max(0, own.lowerBound, end - Int64(format.sampleRate / 25))
        guard end > start else { return true }
        var buffer = [[Float]](repeating: [Float](repeating: 0, count: Int(end - start)), count: format.channels)
        try readFinite(from: source, at: start, count: Int(end - start), into: &buffer)
        for channel in buffer { for sample in channel where abs(sample) > 1e-3 { return false } }
        return true
    }

    /// Whether `plan` begins with an attack: one whose first sample (``OnsetDetector``) lies
    /// within a millisecond of the segment's first frame, against the 40 ms of source before
    /// it. Such a segment enters its join at full level, with no opening fade: risen over the
    /// crossfade, a beep at a 1x segment's first frame lost its attack (exported to AAC, it
    /// reached half its level 1.25 ms late, with pre-echo 1.06 ms before it). The
    /// earlier segment still fades out over its own audio carried on. A segment that starts in
    /// the middle of a sound (a tone, a sweep played on) has no attack there, and fades in.
    func beginsWithAttack(_ plan: Plan, source: AudioSource) throws -> Bool {
        guard plan.kind != .gap, plan.sourceCount > 0 else { return false }
        let ms = Int64(max(1, format.sampleRate / 1000))
        let detector = OnsetDetector(sampleRate: format.sampleRate, channels: format.channels)
        let last = min(plan.sourceEnd, plan.sourceStart + 8 * ms)
        let onsets = try detector.onsets(from: plan.sourceStart - ms, to: last, spacing: Int64(format.sampleRate / 20),
                                         blockSize: blockSize, source: source)
        return onsets.contains { abs($0 - plan.sourceStart) <= ms }
    }

    /// Source frames in `[from, to)` where an attack starts over what plays before it (see
    /// ``OnsetDetector``), at least 50 ms apart.
    func findOnsets(from: Int64, to last: Int64, source: AudioSource) throws -> [Int64] {
        let detector = OnsetDetector(sampleRate: format.sampleRate, channels: format.channels)
        return try detector.onsets(from: from, to: last, spacing: Int64(format.sampleRate / 20), blockSize: blockSize, source: source)
    }
}
