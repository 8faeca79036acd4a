/// The kind of media a track carries.
public enum MediaType: String, Sendable, Hashable, Codable, CaseIterable {
    case video
    case audio
}

/// Which stretch of the source plays over which stretch of the composition, like CMTimeMapping.
///
/// ```
///   source   [3.2 ====== 5.0)            1.8 s of the movie
///               \            \
///   target   [3.2 ==================== 10.4)   played over 7.2 s: rate 1.8 / 7.2 = 1/4
/// ```
///
/// `source` is nil for an empty segment (a gap), which AVFoundation marks with an invalid
/// source start.
public struct TimeMapping: Sendable, Hashable {
    public let source: TimeRange?
    public let target: TimeRange

    public init(source: TimeRange?, target: TimeRange) {
        self.source = source
        self.target = target
    }
}

/// One segment of a composition track: a time mapping plus its exact playback rate.
///
/// Three kinds: media (a source range played at a rate), a gap (nothing: black and silence),
/// and a hold (a freeze frame): `heldTime`, one instant of the source, stays on screen for the
/// whole target range. A hold has no source range and no rate (it is not a very slow rate, so
/// the 1/32 limit does not apply); audio treats it as a gap.
///
/// A media segment may play its source backwards (`isReversed`): its target's start shows the
/// end of its source, and `rate` stays the speed (positive); ``signedRate`` is negative.
///
/// ```
///   media   source [2 ==== 3)   target [2 ==== 3)
///   hold    held 3              target [3 ======== 5)     the frame on screen at 3, for 2 s
///   media   source [3 ==== 4)   target [5 ==== 6)
/// ```
public struct CompositionTrackSegment: Sendable, Hashable {
    public private(set) var timeMapping: TimeMapping
    /// `source.duration / target.duration`, exactly; nil for a gap or a hold.
    public let rate: Rational?
    /// For a hold, the source time whose frame stays on screen; nil otherwise.
    public let heldTime: Time?
    /// Whether the source plays backwards: from `source.end` at `target.start` down to
    /// `source.start` at `target.end`. Always false for a gap or a hold.
    public let isReversed: Bool

    /// A segment that plays `source` over `target` at rate `source.duration / target.duration`,
    /// backwards when `reversed`.
    public init(source: TimeRange, target: TimeRange, reversed: Bool = false) throws(CompositionError) {
        guard !target.isEmpty else { throw .invalidRange("a segment's target range cannot be empty") }
        guard !source.isEmpty else { throw .invalidRange("a media segment's source range cannot be empty") }
        self.timeMapping = TimeMapping(source: source, target: target)
        self.rate = try source.duration.ratio(to: target.duration)
        self.heldTime = nil
        self.isReversed = reversed
    }

    /// An empty segment (a gap) over `target`.
    public init(emptyTarget target: TimeRange) throws(CompositionError) {
        guard !target.isEmpty else { throw .invalidRange("a segment's target range cannot be empty") }
        self.timeMapping = TimeMapping(source: nil, target: target)
        self.rate = nil
        self.heldTime = nil
        self.isReversed = false
    }

    /// A hold over `target`: the frame on screen at source time `held` stays there.
    public init(holding held: Time, target: TimeRange) throws(CompositionError) {
        guard !target.isEmpty else { throw .invalidRange("a segment's target range cannot be empty") }
        guard held.isNumeric else { throw .notNumeric("a held frame needs a numeric source time, not \(held)") }
        self.timeMapping = TimeMapping(source: nil, target: target)
        self.rate = nil
        self.heldTime = held
        self.isReversed = false
    }

    /// The same segment moved along the timeline to start at `start` (its rate is kept, not
    /// recomputed).
    func moved(to start: Time) throws(CompositionError) -> CompositionTrackSegment {
        var moved = self
        moved.timeMapping = TimeMapping(source: timeMapping.source, target: try TimeRange(start: start, duration: target.duration))
        return moved
    }

    /// A gap: no media and no held frame.
    public var isEmpty: Bool { timeMapping.source == nil && heldTime == nil }
    /// A freeze frame.
    public var isHold: Bool { heldTime != nil }
    public var source: TimeRange? { timeMapping.source }
    public var target: TimeRange { timeMapping.target }
    /// The rate with its direction: negative for a reversed segment (`-1` plays backwards at
    /// normal speed); nil for a gap or a hold.
    public var signedRate: Rational? {
        guard let rate else { return nil }
        return isReversed ? rate.negated : rate
    }

    /// The source time that plays at composition time `t`, which must lie in `target`: the
    /// held time throughout a hold; nil for a gap. In a reversed segment, the source time
    /// reached at `t` going backwards: `source.end` at `target.start` (the frame on screen is
    /// the one just before it).
    public func sourceTime(at t: Time) throws(CompositionError) -> Time? {
        if let heldTime { return heldTime }
        guard let source, let rate else { return nil }
        let played = try (t - target.start).multiplied(by: rate)
        return isReversed ? try source.end - played : try source.start + played
    }

    /// The composition time at which source time `s`, which must lie in `source`, plays; nil
    /// for a gap or a hold. Reversed: where playing backwards reaches `s`.
    public func compositionTime(forSourceTime s: Time) throws(CompositionError) -> Time? {
        guard let source, let rate else { return nil }
        let played = isReversed ? try source.end - s : try s - source.start
        return try target.start + played.multiplied(by: rate.reciprocal)
    }

    /// The target range over which `part` of the source plays (part within `source`); nil for
    /// a gap or a hold. Reversed segments play a later part earlier.
    public func targetRange(ofSource part: TimeRange) throws(CompositionError) -> TimeRange? {
        guard let a = try compositionTime(forSourceTime: part.start),
              let b = try compositionTime(forSourceTime: part.end) else { return nil }
        return try TimeRange(start: min(a, b), end: max(a, b))
    }

    /// The source range that plays over `part` of the target (within `target`); nil for a gap
    /// or a hold.
    public func sourceRange(ofTarget part: TimeRange) throws(CompositionError) -> TimeRange? {
        guard source != nil, let a = try sourceTime(at: part.start), let b = try sourceTime(at: part.end) else { return nil }
        return try TimeRange(start: min(a, b), end: max(a, b))
    }
}

extension CompositionTrackSegment: Codable {
    private enum CodingKeys: String, CodingKey { case target, source, rate, hold, reverse }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let target = try c.decode(TimeRange.self, forKey: .target)
        let source = try c.decodeIfPresent(TimeRange.self, forKey: .source)
        let held = try c.decodeIfPresent(Time.self, forKey: .hold)
        let reversed = try c.decodeIfPresent(Bool.self, forKey: .reverse) ?? false
        guard !reversed || source != nil else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "only a segment that plays media can be reversed"))
        }
        do throws(CompositionError) {
            if let source {
                guard held == nil else { throw CompositionError.invalidRange("a segment is either media or a hold, not both") }
                try self.init(source: source, target: target, reversed: reversed)
            } else if let held {
                try self.init(holding: held, target: target)
            } else {
                try self.init(emptyTarget: target)
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        // The rate is written for readers (negative for a reversed segment); it must agree with
        // the ranges it is derived from.
        if let written = try c.decodeIfPresent(Rational.self, forKey: .rate), written != signedRate {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "segment rate \(written) disagrees with its ranges (\(signedRate.map(\.description) ?? "gap"))"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target, forKey: .target)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(signedRate, forKey: .rate)
        try c.encodeIfPresent(heldTime, forKey: .hold)
        if isReversed { try c.encode(true, forKey: .reverse) }
    }
}

/// What plays at one composition time.
public struct Presentation: Sendable, Hashable {
    /// Index of the segment in its track.
    public let segmentIndex: Int
    public let segment: CompositionTrackSegment
    /// The source time playing (the held time inside a hold), or nil inside a gap.
    public let sourceTime: Time?
    /// The playback rate, or nil inside a gap or a hold.
    public var rate: Rational? { segment.rate }
}
