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
public struct CompositionTrackSegment: Sendable, Hashable {
    public let timeMapping: TimeMapping
    /// `source.duration / target.duration`, exactly; nil for an empty segment.
    public let rate: Rational?

    /// A segment that plays `source` over `target` at rate `source.duration / target.duration`.
    public init(source: TimeRange, target: TimeRange) throws(CompositionError) {
        guard !target.isEmpty else { throw .invalidRange("a segment's target range cannot be empty") }
        guard !source.isEmpty else { throw .invalidRange("a media segment's source range cannot be empty") }
        self.timeMapping = TimeMapping(source: source, target: target)
        self.rate = try source.duration.ratio(to: target.duration)
    }

    /// An empty segment (a gap) over `target`.
    public init(emptyTarget target: TimeRange) throws(CompositionError) {
        guard !target.isEmpty else { throw .invalidRange("a segment's target range cannot be empty") }
        self.timeMapping = TimeMapping(source: nil, target: target)
        self.rate = nil
    }

    public var isEmpty: Bool { timeMapping.source == nil }
    public var source: TimeRange? { timeMapping.source }
    public var target: TimeRange { timeMapping.target }

    /// The source time that plays at composition time `t`, which must lie in `target`.
    /// Nil for a gap.
    public func sourceTime(at t: Time) throws(CompositionError) -> Time? {
        guard let source, let rate else { return nil }
        return try source.start + (t - target.start).multiplied(by: rate)
    }

    /// The composition time at which source time `s`, which must lie in `source`, plays.
    public func compositionTime(forSourceTime s: Time) throws(CompositionError) -> Time? {
        guard let source, let rate else { return nil }
        return try target.start + (s - source.start).multiplied(by: rate.reciprocal)
    }
}

extension CompositionTrackSegment: Codable {
    private enum CodingKeys: String, CodingKey { case target, source, rate }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let target = try c.decode(TimeRange.self, forKey: .target)
        let source = try c.decodeIfPresent(TimeRange.self, forKey: .source)
        do {
            if let source { try self.init(source: source, target: target) } else { try self.init(emptyTarget: target) }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        // The rate is written for readers; it must agree with the ranges it is derived from.
        if let written = try c.decodeIfPresent(Rational.self, forKey: .rate), written != rate {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "segment rate \(written) disagrees with its ranges (\(rate.map(\.description) ?? "gap"))"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target, forKey: .target)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(rate, forKey: .rate)
    }
}

/// What plays at one composition time.
public struct Presentation: Sendable, Hashable {
    /// Index of the segment in its track.
    public let segmentIndex: Int
    public let segment: CompositionTrackSegment
    /// The source time playing, or nil inside a gap.
    public let sourceTime: Time?
    /// The playback rate, or nil inside a gap.
    public var rate: Rational? { segment.rate }
}
