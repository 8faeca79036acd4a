/// A time as a user writes it, on the command line or in a recipe: seconds (`3.2`, `1/3`), with
/// units (`3.2s`, `500ms`, `1m30s`, `1h2m`), a timecode (`00:01:03.200`), `end` (the end of the
/// timeline it is resolved against), a time counted back from the end (`end-2s`, as ffmpeg's
/// `-sseof`), or a percentage of the timeline (`25%`).
public enum TimeExpression: Sendable, Hashable, CustomStringConvertible {
    case time(Time)
    case end
    /// `end-T`: T before the end.
    case beforeEnd(Time)
    /// `P%` of the timeline, P from 0 to 100.
    case percent(Rational)

    private static let hundred = try! Rational(100)

    public init(parsing text: String) throws(CompositionError) {
        let trimmed = text.trimmingWhitespace()
        let lowered = trimmed.lowercased()
        if lowered == "end" {
            self = .end
            return
        }
        if lowered.hasPrefix("end-") {
            let back = try Self.nonNegative(String(trimmed.dropFirst(4)), whole: trimmed)
            self = .beforeEnd(back)
            return
        }
        if trimmed.hasSuffix("%") {
            let percent: Rational
            do { percent = try Rational(parsing: String(trimmed.dropLast())) } catch {
                throw .invalidTime("\"\(text)\" is not a percentage; write 25% or 12.5%")
            }
            guard !percent.isNegative, percent <= Self.hundred else {
                throw .invalidTime("\(trimmed) is not between 0% and 100% of the timeline")
            }
            self = .percent(percent)
            return
        }
        self = .time(try Self.nonNegative(trimmed, whole: trimmed))
    }

    private static func nonNegative(_ text: String, whole: String) throws(CompositionError) -> Time {
        let time = try Time(parsing: text)
        guard time >= .zero else {
            throw .invalidTime("time \(Rational.decimals(in: whole)) is negative; times count from 0 at the start of the timeline (write end-2s to count from its end)")
        }
        return time
    }

    /// The time, with `end` standing for `timelineEnd` (a time before the end stops at 0).
    public func resolved(timelineEnd: Time) -> Time {
        switch self {
        case .time(let t): t
        case .end: timelineEnd
        case .beforeEnd(let back): back >= timelineEnd ? .zero : ((try? timelineEnd - back) ?? .zero)
        case .percent(let p): (try? timelineEnd.multiplied(by: p / Self.hundred)) ?? timelineEnd
        }
    }

    public var description: String {
        switch self {
        case .time(let t): t.secondsText
        case .end: "end"
        case .beforeEnd(let back): "end-\(back.secondsText)"
        case .percent(let p): "\(p.exactDecimal() ?? p.description)%"
        }
    }
}

extension TimeExpression {
    /// As messages repeat it: ``description`` with fractions as decimals (`33.333` for 100/3).
    public var shown: String { Rational.decimals(in: description) }
}

extension RangeExpression {
    /// What the user typed, fractions as decimals (`0.333-33.333` for `1/3-100/3`), for messages.
    public var shown: String { Rational.decimals(in: text) }
}

/// A range as a user writes it: `A-B`, where A and B are ``TimeExpression``s (`3.2-5.0`,
/// `00:01:00-00:01:30.5`, `8-end`, `end-5s-end`, `25%-50%`).
public struct RangeExpression: Sendable, Hashable, CustomStringConvertible {
    public let start: TimeExpression
    public let end: TimeExpression
    /// What the user typed, for messages.
    public let text: String

    /// A `-` inside `end-2s` is not the range's: the first split whose two sides both read as
    /// times is the range (`end-5-end` is `end-5` to `end`).
    public init(parsing text: String) throws(CompositionError) {
        let trimmed = text.trimmingWhitespace()
        var firstError: CompositionError?
        for dash in trimmed.indices where trimmed[dash] == "-" {
            let left = String(trimmed[..<dash]), right = String(trimmed[trimmed.index(after: dash)...])
            guard !left.isEmpty, !right.isEmpty else { continue }
            let start: TimeExpression, end: TimeExpression
            do {
                start = try TimeExpression(parsing: left)
                end = try TimeExpression(parsing: right)
            } catch {
                if firstError == nil { firstError = error }
                continue
            }
            self.start = start
            self.end = end
            self.text = trimmed
            return
        }
        throw firstError ?? .invalidRange("\"\(text)\" is not a range; write START-END, for example 3.2-5.0, 25%-50%, 1:00-end or end-5s-end")
    }

    /// The exact range on a timeline of length `timelineEnd`. Throws, with the user's own
    /// text, when the range is reversed, empty, or runs past the end.
    public func resolved(timelineEnd: Time) throws(CompositionError) -> TimeRange {
        let a = start.resolved(timelineEnd: timelineEnd)
        let b = end.resolved(timelineEnd: timelineEnd)
        if a > timelineEnd && b <= timelineEnd {
            throw .beyondTimeline("range \(shown) starts at \(a.readable), after the end of the timeline at \(timelineEnd.readable)")
        }
        if b < a { throw .invalidRange("range \(shown) ends before it starts") }
        if b == a { throw .invalidRange("range \(shown) is empty; it starts and ends at \(a.readable)") }
        if b > timelineEnd {
            throw .beyondTimeline("range \(shown) goes beyond the end of the timeline at \(timelineEnd.readable)")
        }
        return try TimeRange(start: a, end: b)
    }

    public var description: String { text }
}
