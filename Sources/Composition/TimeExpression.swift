/// A time as a user writes it on the command line: seconds (`3.2`, `1/3`), a timecode
/// (`00:01:03.200`), or `end`, which means the end of the timeline it is resolved against.
public enum TimeExpression: Sendable, Hashable, CustomStringConvertible {
    case time(Time)
    case end

    public init(parsing text: String) throws(CompositionError) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.lowercased() == "end" {
            self = .end
            return
        }
        let time = try Time(parsing: trimmed)
        guard time >= .zero else {
            throw .invalidTime("time \(trimmed) is negative; times count from 0 at the start of the timeline")
        }
        self = .time(time)
    }

    /// The time, with `end` standing for `timelineEnd`.
    public func resolved(timelineEnd: Time) -> Time {
        switch self {
        case .time(let t): t
        case .end: timelineEnd
        }
    }

    public var description: String {
        switch self {
        case .time(let t): t.secondsText
        case .end: "end"
        }
    }
}

/// A range as a user writes it: `A-B`, where A and B are ``TimeExpression``s (`3.2-5.0`,
/// `00:01:00-00:01:30.5`, `8-end`).
public struct RangeExpression: Sendable, Hashable, CustomStringConvertible {
    public let start: TimeExpression
    public let end: TimeExpression
    /// What the user typed, for messages.
    public let text: String

    public init(parsing text: String) throws(CompositionError) {
        let trimmed = text.trimmingWhitespace()
        let parts = trimmed.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .invalidRange("\"\(text)\" is not a range; write START-END, for example 3.2-5.0 or 1:00-end")
        }
        self.start = try TimeExpression(parsing: String(parts[0]))
        self.end = try TimeExpression(parsing: String(parts[1]))
        self.text = trimmed
    }

    /// The exact range on a timeline of length `timelineEnd`. Throws, with the user's own
    /// text, when the range is reversed, empty, or runs past the end.
    public func resolved(timelineEnd: Time) throws(CompositionError) -> TimeRange {
        let a = start.resolved(timelineEnd: timelineEnd)
        let b = end.resolved(timelineEnd: timelineEnd)
        if a > timelineEnd && b <= timelineEnd {
            throw .beyondTimeline("range \(text) starts at \(a.readable), after the end of the timeline at \(timelineEnd.readable)")
        }
        if b < a { throw .invalidRange("range \(text) ends before it starts") }
        if b == a { throw .invalidRange("range \(text) is empty; it starts and ends at \(a)") }
        if b > timelineEnd {
            throw .beyondTimeline("range \(text) goes beyond the end of the timeline at \(timelineEnd)")
        }
        return try TimeRange(start: a, end: b)
    }

    public var description: String { text }
}
