/// Which source span plays where, at what rate: the one place a track's segments are laid out,
/// in whole frames for the audio renderer and the preview, and end to end again after
/// passthrough moves its cuts to keyframes.
///
/// ```
///   segments   [0 ── 3.2)[3.2 ─────── 10.4)[10.4 ─ 12)      exact composition time
///   spans      [0, 153600)[153600, 499200)[499200, 576000)  frames at 48 kHz, each
///              source [0, 153600) at 1    source [153600, 240000) at 1/4   …
/// ```
///
/// A span's frames are `round(t × frameRate)` of its exact edges, so consecutive spans meet
/// exactly and nothing drifts however many segments there are.
public struct FrameSpan: Sendable, Hashable {
    /// Output frames the span occupies.
    public let target: Range<Int64>
    /// Source frames it plays (from `sourceOrigin`, see ``FrameSpan/spans(of:framesPerSecond:sourceOrigin:)``);
    /// nil for a gap or a hold (a hold is silent: its audio is a gap).
    public let source: Range<Int64>?
    /// Its exact playback rate (source over target); nil for a gap.
    public let rate: Rational?
    /// The segment it was laid out from.
    public let segment: CompositionTrackSegment

    /// The spans of `segments` (tiling a track from 0) in frames of `framesPerSecond`; spans that
    /// round to no frame at all are left out. `sourceOrigin` is the source frame of source time 0.
    public static func spans(of segments: [CompositionTrackSegment], framesPerSecond: Int32,
                             sourceOrigin: Int64 = 0) throws(CompositionError) -> [FrameSpan] {
        func frames(_ t: Time) throws(CompositionError) -> Int64 {
            try t.rescaled(to: framesPerSecond, rounding: .toNearestOrAwayFromZero).value
        }
        var spans: [FrameSpan] = []
        for segment in segments {
            let start = try frames(segment.target.start), end = try frames(segment.target.end)
            guard end > start else { continue }
            var source: Range<Int64>?
            if let range = segment.source {
                source = (try frames(range.start) + sourceOrigin)..<(try frames(range.end) + sourceOrigin)
            }
            spans.append(FrameSpan(target: start..<end, source: source, rate: segment.rate, segment: segment))
        }
        return spans
    }
}

/// A piece of a timeline before it is laid out: source played at a rate, or a gap (or a hold)
/// of a length.
public struct TimelinePiece: Sendable, Hashable {
    public var source: TimeRange?
    public var rate: Rational?
    /// A gap's or a hold's length (ignored for media).
    public var gap: Time
    /// A hold's held source time.
    public var held: Time?
    /// Media played backwards.
    public var reversed: Bool

    public init(_ segment: CompositionTrackSegment) {
        source = segment.source
        rate = segment.rate
        gap = segment.target.duration
        held = segment.heldTime
        reversed = segment.isReversed
    }

    /// Segments playing `pieces` end to end from time 0: each media piece over its source's
    /// length divided by its rate, each gap over its length; empty pieces are left out.
    public static func laidOut(_ pieces: [TimelinePiece]) throws(CompositionError) -> [CompositionTrackSegment] {
        var result: [CompositionTrackSegment] = []
        var start = Time.zero
        for piece in pieces {
            if let source = piece.source, let rate = piece.rate {
                guard source.duration > .zero else { continue }
                let target = try TimeRange(start: start, duration: source.duration.multiplied(by: rate.reciprocal))
                result.append(try CompositionTrackSegment(source: source, target: target, reversed: piece.reversed))
                start = target.end
            } else if piece.source == nil, piece.gap > .zero {
                let target = try TimeRange(start: start, duration: piece.gap)
                if let held = piece.held {
                    result.append(try CompositionTrackSegment(holding: held, target: target))
                } else {
                    result.append(try CompositionTrackSegment(emptyTarget: target))
                }
                start = target.end
            }
        }
        return result
    }
}
