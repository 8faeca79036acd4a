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
        /// Crossfade half-widths at the start and end.
        var fadeIn = 0
        var fadeOut = 0
        /// A split at an onset inside a stretched segment (see `splitAtOnsets`): the piece before
        /// it fades out over `fadeOut` frames ending exactly at the onset and reads the background
        /// predicted on (``BackgroundTail``), not the onset, past its end; the piece after starts at full level exactly at the onset.
        var endsAtOnset = false
        /// The piece after such a split: it starts at the onset (see ``onsetContext(_:ratio:)``).
        var startsAtOnset = false
        /// The source frame from which this piece reads ``BackgroundTail`` instead of the source: the onset
        /// that starts the next piece or follows the segment, kept out of its context.
        var silentFrom: Int64?
        /// Stretched steps joined into this plan (see ``joinedSteps(_:)``): where each step
        /// after the first starts, as (source frame, output frame). Empty for a single segment.
        var keyFrames: [(source: Int64, out: Int64)] = []
        /// Whether the segment plays its source backwards: then `sourceStart..<sourceEnd` are
        /// mirrored frames (see ``ReversedAudioSource``), read through a reversed source.
        var reversed = false

        var outCount: Int64 { outEnd - outStart }
        var sourceCount: Int64 { sourceEnd - sourceStart }
        /// Output frames where the opening fade rises from 0 to 1, and the closing one falls.
        var fadeInStart: Int64 { outStart - Int64(fadeIn) }
        var fadeInEnd: Int64 { outStart + Int64(fadeIn) }
        var fadeOutStart: Int64 { outEnd - Int64(fadeOut) }
        var fadeOutEnd: Int64 { endsAtOnset ? outEnd : outEnd + Int64(fadeOut) }
        var fadeOutWidth: Int { endsAtOnset ? fadeOut : 2 * fadeOut }
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
                return plan
            }
        return withJoins(plans)
    }

    /// Each join fades over the same width from both sides, never more than half of either
    /// neighbour, so the ramps inside one segment never overlap.
    private func withJoins(_ plans: [Plan]) -> [Plan] {
        var plans = plans
        for i in plans.indices.dropLast() {
            let h = Int(min(Int64(crossfadeHalfWidth), plans[i].outCount / 2, plans[i + 1].outCount / 2))
            plans[i].fadeOut = h
            plans[i + 1].fadeIn = h
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
    /// their crossfade sums a signal with itself.
    public func untouchedSpans(_ segments: [CompositionTrackSegment], sourceOrigin: Int64 = 0) throws -> [UntouchedSpan] {
        var spans: [UntouchedSpan] = []
        var open: (start: Int64, end: Int64, offset: Int64, fadeOut: Int)?
        for plan in try plan(segments, sourceOrigin: sourceOrigin) {
            let offset = plan.outStart - plan.sourceStart
            let untouched = plan.kind == .copy && !plan.reversed
            if untouched, let current = open, current.end == plan.outStart, current.offset == offset {
                open = (current.start, plan.outEnd, offset, plan.fadeOut)
                continue
            }
            if let current = open, current.end - Int64(current.fadeOut) > current.start {
                spans.append(UntouchedSpan(output: current.start..<(current.end - Int64(current.fadeOut)), offset: current.offset))
            }
            open = untouched ? (plan.outStart + Int64(plan.fadeIn), plan.outEnd, offset, plan.fadeOut) : nil
        }
        if let current = open, current.end - Int64(current.fadeOut) > current.start {
            spans.append(UntouchedSpan(output: current.start..<(current.end - Int64(current.fadeOut)), offset: current.offset))
        }
        return spans
    }
}
