/// A half-open span of time, `[start, start + duration)`: it includes its start and excludes
/// its end, like CMTimeRange and OpenTimelineIO's `TimeRange`.
///
/// ```
///        start                end
///          [====================)
///          ^ contained          ^ not contained
/// ```
///
/// Both ends are exact, and the end is computed once, at construction, so a range whose end
/// cannot be represented is refused up front instead of failing later.
public struct TimeRange: Sendable, Hashable {
    public let start: Time
    public let duration: Time
    /// `start + duration`, exactly.
    public let end: Time

    /// Throws for a non-numeric start or duration, a negative duration, or an unrepresentable end.
    public init(start: Time, duration: Time) throws(CompositionError) {
        guard start.isNumeric, duration.isNumeric else {
            throw .notNumeric("a time range needs numeric times, not \(start) and \(duration)")
        }
        guard duration >= .zero else {
            throw .invalidRange("a time range cannot have a negative duration (\(duration))")
        }
        self.start = start
        self.duration = duration
        self.end = try start + duration
    }

    /// `[start, end)`. Throws when `end` is before `start`.
    public init(start: Time, end: Time) throws(CompositionError) {
        guard start.isNumeric, end.isNumeric else {
            throw .notNumeric("a time range needs numeric times, not \(start) and \(end)")
        }
        guard end >= start else {
            throw .invalidRange("range \(start.shown)-\(end.shown) ends before it starts")
        }
        self.start = start
        self.duration = try end - start
        self.end = end
    }

    public static let zero = try! TimeRange(start: .zero, duration: .zero)

    public var isEmpty: Bool { duration == .zero }

    /// ```
    ///   self   [==========)
    ///   t          ^            true: start <= t < end
    /// ```
    public func contains(_ time: Time) -> Bool { start <= time && time < end }

    /// ```
    ///   self   [==========)
    ///   other     [====)        true: other lies within self (ends may touch)
    /// ```
    public func contains(_ other: TimeRange) -> Bool { start <= other.start && other.end <= end }

    /// ```
    ///   self   [======)
    ///   other      [======)     true: they share a non-empty stretch
    ///   other         [===)     false: they only meet
    /// ```
    public func overlaps(_ other: TimeRange) -> Bool { start < other.end && other.start < end }

    /// ```
    ///   self   [======)
    ///   other         [===)     true: self ends exactly where other starts
    /// ```
    public func meets(_ other: TimeRange) -> Bool { end == other.start }

    /// The part of `self` inside `bounds`, or nil when they do not overlap. Throws when they
    /// overlap but the part's length needs a timescale above 2^31: an edit must then be refused,
    /// never carried out as if there were nothing there.
    ///
    /// ```
    ///   self        [==========)
    ///   bounds  [=======)
    ///   result      [===)
    /// ```
    public func clamped(to bounds: TimeRange) throws(CompositionError) -> TimeRange? {
        guard overlaps(bounds) else { return nil }
        return try TimeRange(start: max(start, bounds.start), end: min(end, bounds.end))
    }
}

extension TimeRange: CustomStringConvertible {
    /// `3.2-5` (seconds), the same form the command line accepts.
    public var description: String { shown }

    /// The exact bounds in seconds, `1/3-2.5`, as `--json` and documents write them.
    public var exactText: String { "\(start.secondsText)-\(end.secondsText)" }

    /// As messages show it: `3.2-5`, `9-9.123` (see ``Time/shown``).
    public var shown: String { "\(start.shown)-\(end.shown)" }
}

extension TimeRange: Codable {
    private enum CodingKeys: String, CodingKey { case start, duration }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let start = try c.decode(Time.self, forKey: .start)
        let duration = try c.decode(Time.self, forKey: .duration)
        do {
            try self.init(start: start, duration: duration)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(duration, forKey: .duration)
    }
}
