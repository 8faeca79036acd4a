import Composition
import Foundation

/// How ``TimelineRenderer`` lays a track's segments out in output frames, each with the
/// crossfades of its joins.
extension TimelineRenderer {
    /// How a segment's frames are made.
    enum Kind: Equatable { case gap, copy, stretch, resample }

    struct Plan {
        let kind: Kind
        /// Output frames `[outStart, outEnd)`.
        let outStart: Int64
        let outEnd: Int64
        /// Source frames `[sourceStart, sourceEnd)`.
        let sourceStart: Int64
        let sourceEnd: Int64
        /// Exact playback rate (source over target).
        let rate: Rational?
        /// The source frames the segment owns: all it may read. A piece split off at an onset
        /// keeps its segment's, and a ramp's joined steps own their run's. Before them the
        /// kernels read silence (R2 reads nothing), after them the segment's own audio predicted
        /// on and faded out (``BackgroundTail``): never a neighbour's source, so no sound crosses
        /// an edit boundary.
        var own: Range<Int64> = 0..<0
        /// Crossfade widths of the joins. The opening fade rises over `fadeIn` frames from
        /// `outStart`, inside the segment; the closing one falls over `fadeOut` frames from
        /// `outEnd`, past the segment's end, where the next segment is rising, played from the
        /// segment's own audio predicted on. Nothing of a segment sounds before its start. A
        /// segment that begins with an attack has no opening fade (set as it is rendered, see
        /// ``TimelineRenderer/beginsWithAttack(_:source:)``); the one before still fades out.
        var fadeIn = 0
        var fadeOut = 0
        /// A split at an onset inside a stretched segment (see `splitAtOnsets`): the piece before
        /// it fades out over `fadeOut` frames ending exactly at the onset and reads the background
        /// predicted on (``BackgroundTail``), not the onset, past its end; the piece after starts at full level exactly at the onset.
        var endsAtOnset = false
        /// The piece after such a split: it starts at the onset (see ``onsetContext(_:ratio:)``).
        var startsAtOnset = false
        /// Where the audio a head loops (what the piece reads before ``own``) ends: the first
        /// onset of the segment it was split from, so that no piece warms up on an attack
        /// (nil: the whole of `own`).
        var headEnd: Int64?
        /// The source frame from which this piece reads ``BackgroundTail`` instead of the source:
        /// the onset that starts the next piece, or else the end of what it owns.
        var silentFrom: Int64?
        /// The source frame before which this piece reads digital silence: set for R3 on a
        /// piece that starts at an attack out of silence (see ``TimelineRenderer/stretch``).
        var silentUntil: Int64?
        /// Stretched steps joined into this plan (see ``joinedSteps(_:)``): where each step
        /// after the first starts, as (source frame, output frame). Empty for a single segment.
        var keyFrames: [(source: Int64, out: Int64)] = []
        /// Whether the segment plays its source backwards: then `sourceStart..<sourceEnd` are
        /// mirrored frames (see ``ReversedAudioSource``), read through a reversed source.
        var reversed = false

        var outCount: Int64 { outEnd - outStart }
        var sourceCount: Int64 { sourceEnd - sourceStart }
        /// Where the piece stops reading its source and reads ``BackgroundTail`` instead.
        var tailStart: Int64 { silentFrom ?? own.upperBound }
        /// Output frames where the opening fade rises from 0 to 1, and the closing one falls.
        var fadeInStart: Int64 { outStart }
        var fadeInEnd: Int64 { outStart + Int64(fadeIn) }
        var fadeOutStart: Int64 { endsAtOnset ? outEnd - Int64(fadeOut) : outEnd }
        var fadeOutEnd: Int64 { endsAtOnset ? outEnd : outEnd + Int64(fadeOut) }
        var fadeOutWidth: Int { fadeOut }
    }

    /// Lays the segments out in output frames. `sourceOrigin` is the source frame of source
    /// time 0.
    func plan(_ segments: [CompositionTrackSegment], sourceOrigin: Int64) throws -> [Plan] {
        let plans = try FrameSpan.spans(of: segments, framesPerSecond: Int32(format.sampleRate), sourceOrigin: sourceOrigin)
            .map { span -> Plan in
                guard let source = span.source, let rate = span.rate else {
                    return Plan(kind: .gap, outStart: span.target.lowerBound, outEnd: span.target.upperBound, sourceStart: 0, sourceEnd: 0, rate: nil)
                }
                let kind: Kind
                if rate == .one && settings.semitones == 0 { kind = .copy }
                else if settings.algorithm == .varispeed { kind = .resample }
                else { kind = .stretch }
                // Backwards: the same kernels over mirrored frames, which read the source reversed.
                let reversed = span.segment.isReversed
                let frames = reversed ? ReversedAudioSource.mirrored(source) : source
                var plan = Plan(kind: kind, outStart: span.target.lowerBound, outEnd: span.target.upperBound,
                                sourceStart: frames.lowerBound, sourceEnd: frames.upperBound, rate: rate)
                plan.reversed = reversed
                plan.own = plan.sourceStart..<plan.sourceEnd
                return plan
            }
        return withJoins(plans)
    }

    /// Each join fades over the same width on both sides, inside the later segment (never
    /// wider than it): the later one rises from its first frame while the earlier one, carried
    /// on from its own audio, falls. A join where a copied segment simply continues the one
    /// before it in the source is no join: the source plays on, unfaded.
    private func withJoins(_ plans: [Plan]) -> [Plan] {
        var plans = plans
        for i in plans.indices.dropLast() {
            let (a, b) = (plans[i], plans[i + 1])
            let continues = a.kind == .copy && b.kind == .copy && a.reversed == b.reversed && a.sourceEnd == b.sourceStart
            let width = continues ? 0 : Int(min(Int64(crossfadeWidth), b.outCount))
            plans[i].fadeOut = width
            plans[i + 1].fadeIn = width
        }
        return plans
    }
}

/// Output frames where a rendered timeline is its source's audio, unchanged: the inside of a
/// segment played at 1x without a pitch shift, away from the crossfades of its joins.
public struct UntouchedSpan: Sendable, Hashable {
    /// The output frames.
    public let output: Range<Int64>
    /// Output frame minus source frame, constant across the span.
    public let offset: Int64

    public init(output: Range<Int64>, offset: Int64) {
        self.output = output
        self.offset = offset
    }
}

extension TimelineRenderer {
    /// Where the render of `segments` plays the source unchanged (see ``UntouchedSpan``), in
    /// order; never where it plays backwards. Neighbouring 1x segments that continue each other in the source count as one span:
    /// they have no join at all.
    public func untouchedSpans(_ segments: [CompositionTrackSegment], sourceOrigin: Int64 = 0) throws -> [UntouchedSpan] {
        var spans: [UntouchedSpan] = []
        for plan in try plan(segments, sourceOrigin: sourceOrigin) where plan.kind == .copy && !plan.reversed {
            // A copy is untouched from its opening fade's end to its own end: its closing fade
            // lies past it, inside the next segment's opening one.
            let output = plan.fadeInEnd..<plan.outEnd, offset = plan.outStart - plan.sourceStart
            guard !output.isEmpty else { continue }
            if let last = spans.last, last.output.upperBound == output.lowerBound, last.offset == offset {
                spans[spans.count - 1] = UntouchedSpan(output: last.output.lowerBound..<output.upperBound, offset: offset)
            } else {
                spans.append(UntouchedSpan(output: output, offset: offset))
            }
        }
        return spans
    }
}
