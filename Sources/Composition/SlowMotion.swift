import Foundation

/// Slow motion as the iPhone's Photos app shows a high-frame-rate clip: `range` (timeline time)
/// slows from 1x to `rate` through a speed ramp, plays at `rate`, and speeds up to 1x again
/// through a second ramp, both inside the range and `rampLength` long (before the edit):
///
///     before:  | 0 ─── A ══════════════════════════ B ─── end |
///     after:   | 0 ─── A ╲ramp in╲ ══ rate ══ ╱ramp out╱ B' ─── end |
///                        1x → rate            rate → 1x
///
/// The ramps are ``Ramp``s (linear, default steps), the middle is one `scaleTimeRange`, and the
/// whole is one edit. On a range that is already scaled the rates multiply, as for `scale`.
public struct SlowMotion: Sendable, Hashable {
    public let range: TimeRange
    public let rate: Rational
    /// Each ramp's length, in timeline time before the edit.
    public let rampLength: Time

    /// Photos' default slow section: from 15% to 85% of the clip.
    public static let defaultStart = try! Rational(15, 100)
    public static let defaultEnd = try! Rational(85, 100)
    /// About half a second of source for each ramp.
    public static let defaultRampLength = Time(value: 1, timescale: 2)
    /// The nominal frame rates from which Photos slows a clip to 1/8 and to 1/4.
    public static let eighthSpeedFrameRate = 210.0
    public static let quarterSpeedFrameRate = 85.0

    /// Slow motion over `range` at `rate` (below 1, at least 1/32), with ramps of `rampLength`
    /// or, when nil, the default: half a second, or a quarter of the range if that is shorter.
    public init(range: TimeRange, rate: Rational, rampLength: Time? = nil) throws(CompositionError) {
        guard range.start.isNumeric, range.duration.isNumeric, !range.isEmpty else {
            throw .invalidRange("range \(range) is empty; slow motion needs a range that ends after it starts")
        }
        try PlaybackRate.validate(rate)
        guard rate < .one else {
            throw .rateOutOfRange("slow motion plays slower than 1x; rate \(rate.readable) is not (use `scale` to speed up)")
        }
        let quarter = try range.duration.multiplied(by: Rational(1, 4))
        let ramp = rampLength ?? min(Self.defaultRampLength, quarter)
        guard ramp.isNumeric, ramp > .zero, try ramp + ramp < range.duration else {
            throw .invalidRange("ramps of \(ramp) in and out do not fit in \(range) with time at the slow rate between them")
        }
        self.range = range
        self.rate = rate
        self.rampLength = ramp
    }

    /// Photos' rate for a clip of nominal `framesPerSecond`: 1/8 from 210 fps, 1/4 from 85 fps;
    /// nil below (not a high-frame-rate clip).
    public static func photosRate(framesPerSecond: Double) -> Rational? {
        if framesPerSecond >= eighthSpeedFrameRate { return try? Rational(1, 8) }
        if framesPerSecond >= quarterSpeedFrameRate { return try? Rational(1, 4) }
        return nil
    }

    /// The refusal for a clip below 85 fps.
    public static func notHighFrameRate(framesPerSecond: Double) -> CompositionError {
        .notHighFrameRate("the video plays at \(String(format: "%.3g", framesPerSecond)) fps: not a high-frame-rate clip (slow motion needs \(Int(quarterSpeedFrameRate)) fps or more: 0.25x from \(Int(quarterSpeedFrameRate)) fps, 0.125x from \(Int(eighthSpeedFrameRate))); use `scale` or `ramp` to slow it anyway")
    }

    /// What Photos shows for a clip of `duration` at nominal `framesPerSecond` without an
    /// adjustment of its own: 15% to 85% of the duration at ``photosRate(framesPerSecond:)``.
    public static func photosDefault(duration: Time, framesPerSecond: Double) throws(CompositionError) -> SlowMotion {
        guard let rate = photosRate(framesPerSecond: framesPerSecond) else {
            throw notHighFrameRate(framesPerSecond: framesPerSecond)
        }
        let range = try TimeRange(start: duration.multiplied(by: defaultStart), end: duration.multiplied(by: defaultEnd))
        return try SlowMotion(range: range, rate: rate)
    }

    /// The ramp into the slow section (1x to `rate`) and out of it (`rate` to 1x), in timeline
    /// time before the edit.
    public func ramps() throws(CompositionError) -> (into: Ramp, outOf: Ramp) {
        let into = try Ramp(range: TimeRange(start: range.start, duration: rampLength), from: .one, to: rate)
        let outOf = try Ramp(range: TimeRange(start: range.end - rampLength, end: range.end), from: rate, to: .one)
        return (into, outOf)
    }

    /// The slow section between the ramps, in timeline time before the edit.
    public func middle() throws(CompositionError) -> TimeRange {
        try TimeRange(start: range.start + rampLength, end: range.end - rampLength)
    }

    /// The length of the range after the edit: the ramps' exact lengths plus the middle's.
    public func duration() throws(CompositionError) -> Time {
        let (into, outOf) = try ramps()
        return try into.duration() + middle().duration.multiplied(by: rate.reciprocal) + outOf.duration()
    }

    /// Last to first, so each part's range (before the edit) is still where it was.
    func apply(to composition: inout Composition) throws(CompositionError) {
        guard range.start >= .zero, range.end <= composition.duration else {
            throw .beyondTimeline("range \(range) goes beyond the end of the timeline (\(composition.duration))")
        }
        let (into, outOf) = try ramps()
        let middle = try middle()
        try outOf.apply(to: &composition)
        try composition.scaleTimeRange(middle, toDuration: middle.duration.multiplied(by: rate.reciprocal))
        try into.apply(to: &composition)
    }
}
