/// An exact time on a timeline: `value / timescale` seconds, with CMTime's special values.
///
/// `Time(value: 2, timescale: 600)` is **2/600 s** (one three-hundredth of a second), not 2 s:
/// the value counts ticks of `1/timescale` s. To mean seconds, say so: `Time.seconds(2)`,
/// `Time(seconds: Rational)` or `Time(parsing: "3.2")`. `description` always prints seconds, so
/// the mistake shows the moment a time is printed.
///
/// Arithmetic is exact. Results are reduced to lowest terms; a result whose denominator no longer
/// fits a 32-bit timescale, or whose value no longer fits 64 bits, throws
/// ``CompositionError/overflow(_:)``. Nothing is ever rounded unless a caller asks for it with
/// ``rescaled(to:rounding:)``.
public struct Time: Sendable {
    /// CMTime's flags, as one explicit case.
    public enum Kind: String, Sendable, Codable {
        case numeric
        case positiveInfinity
        case negativeInfinity
        /// Known to exist but not known in length (a live stream's duration).
        case indefinite
        /// Not a time at all (CMTime's `kCMTimeInvalid`).
        case invalid
    }

    /// Ticks of `1/timescale` second. Zero for every kind but ``Kind/numeric``.
    public let value: Int64
    /// Ticks per second; always positive for numeric times.
    public let timescale: Int32
    public let kind: Kind

    /// `value` ticks of `1/timescale` s each. A timescale of zero or less gives ``invalid``.
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.init(raw: value, timescale, .numeric)
        } else {
            self.init(raw: 0, 0, .invalid)
        }
    }

    private init(raw value: Int64, _ timescale: Int32, _ kind: Kind) {
        self.value = value
        self.timescale = timescale
        self.kind = kind
    }

    /// A whole number of seconds.
    public static func seconds(_ seconds: Int64) -> Time { Time(value: seconds, timescale: 1) }

    /// An exact number of seconds; throws if its denominator does not fit a 32-bit timescale.
    public init(seconds: Rational) throws(CompositionError) {
        guard let timescale = Int32(exactly: seconds.denominator) else {
            throw .overflow("\(seconds) s needs a timescale above 2^31")
        }
        self.init(value: seconds.numerator, timescale: timescale)
    }

    public static let zero = Time(raw: 0, 1, .numeric)
    public static let invalid = Time(raw: 0, 0, .invalid)
    public static let positiveInfinity = Time(raw: 0, 0, .positiveInfinity)
    public static let negativeInfinity = Time(raw: 0, 0, .negativeInfinity)
    public static let indefinite = Time(raw: 0, 0, .indefinite)

    public var isNumeric: Bool { kind == .numeric }
    public var isValid: Bool { kind != .invalid }

    /// The exact number of seconds, or nil for a non-numeric time.
    public var exactSeconds: Rational? {
        guard isNumeric else { return nil }
        return try? Rational.reduce(Int128(value), Int128(timescale))
    }

    /// Seconds as a `Double`, for display and DSP only. Infinities map to ±infinity, the rest to NaN.
    public var seconds: Double {
        switch kind {
        case .numeric: Double(value) / Double(timescale)
        case .positiveInfinity: .infinity
        case .negativeInfinity: -.infinity
        case .indefinite, .invalid: .nan
        }
    }

    /// Builds a numeric time from an exact 128-bit fraction of seconds, reduced.
    static func make(_ numerator: Int128, _ denominator: Int128) throws(CompositionError) -> Time {
        let r = try Rational.reduce(numerator, denominator)
        return try Time(seconds: r)
    }
}

// MARK: - Arithmetic

extension Time {
    /// Exact sum. Special values follow CMTimeAdd: invalid wins, then indefinite; `+∞ + −∞` is invalid.
    public static func + (a: Time, b: Time) throws(CompositionError) -> Time {
        if let special = combineSpecial(a, b, negateB: false) { return special }
        return try make(Int128(a.value) * Int128(b.timescale) + Int128(b.value) * Int128(a.timescale),
                        Int128(a.timescale) * Int128(b.timescale))
    }

    public static func - (a: Time, b: Time) throws(CompositionError) -> Time {
        if let special = combineSpecial(a, b, negateB: true) { return special }
        return try make(Int128(a.value) * Int128(b.timescale) - Int128(b.value) * Int128(a.timescale),
                        Int128(a.timescale) * Int128(b.timescale))
    }

    private static func combineSpecial(_ a: Time, _ b: Time, negateB: Bool) -> Time? {
        if a.kind == .numeric && b.kind == .numeric { return nil }
        if a.kind == .invalid || b.kind == .invalid { return .invalid }
        if a.kind == .indefinite || b.kind == .indefinite { return .indefinite }
        var bKind = b.kind
        if negateB, bKind == .positiveInfinity { bKind = .negativeInfinity } else if negateB, bKind == .negativeInfinity { bKind = .positiveInfinity }
        let infinities = [a.kind, bKind].filter { $0 != .numeric }
        if infinities.contains(.positiveInfinity) && infinities.contains(.negativeInfinity) { return .invalid }
        return infinities.first == .positiveInfinity ? .positiveInfinity : .negativeInfinity
    }

    /// This time multiplied by an exact factor. Infinite times keep (or flip) their sign.
    public func multiplied(by factor: Rational) throws(CompositionError) -> Time {
        switch kind {
        case .numeric:
            return try Time.make(Int128(value) * Int128(factor.numerator),
                                 Int128(timescale) * Int128(factor.denominator))
        case .positiveInfinity, .negativeInfinity:
            if factor.isZero { return .invalid }
            return (kind == .positiveInfinity) == factor.isPositive ? .positiveInfinity : .negativeInfinity
        case .indefinite, .invalid:
            return self
        }
    }

    /// The exact ratio `self / other` of two numeric times, such as a segment's rate
    /// `source.duration / target.duration`.
    public func ratio(to other: Time) throws(CompositionError) -> Rational {
        guard isNumeric, other.isNumeric else { throw .notNumeric("a ratio of \(self) and \(other)") }
        guard other.value != 0 else { throw .invalidRational("a ratio to a zero duration") }
        return try Rational.reduce(Int128(value) * Int128(other.timescale), Int128(timescale) * Int128(other.value))
    }

    public static prefix func - (t: Time) throws(CompositionError) -> Time {
        try Time.zero - t
    }
}

// MARK: - Rescaling

extension Time {
    /// The same time counted in ticks of `1/timescale` s, rounded by `rule` when it is not exact.
    ///
    /// | rule | 2.5 ticks | -2.5 ticks | use |
    /// |---|---|---|---|
    /// | `.toNearestOrAwayFromZero` | 3 | -3 | nearest output tick (the default) |
    /// | `.toNearestOrEven` | 2 | -2 | unbiased rounding of many values |
    /// | `.down` | 2 | -3 | the last tick at or before the time |
    /// | `.up` | 3 | -2 | the first tick at or after the time |
    /// | `.towardZero` | 2 | -2 | truncation |
    /// | `.awayFromZero` | 3 | -3 | |
    ///
    /// Throws ``CompositionError/overflow(_:)`` if the tick count does not fit 64 bits, and
    /// ``CompositionError/notNumeric(_:)`` for a non-numeric time.
    public func rescaled(to newTimescale: Int32, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero)
        throws(CompositionError) -> Time
    {
        guard isNumeric else { throw .notNumeric("rescaling \(self)") }
        guard newTimescale > 0 else { throw .invalidRational("timescale \(newTimescale) is not positive") }
        let ticks = Time.divide(Int128(value) * Int128(newTimescale), by: Int128(timescale), rounding: rule)
        guard let ticks64 = Int64(exactly: ticks) else {
            throw .overflow("\(self) in ticks of 1/\(newTimescale) s does not fit 64 bits")
        }
        return Time(value: ticks64, timescale: newTimescale)
    }

    /// Whether this time is a whole number of ticks of `1/timescale` s.
    public func isExact(in newTimescale: Int32) -> Bool {
        guard isNumeric, newTimescale > 0 else { return false }
        return (Int128(value) * Int128(newTimescale)) % Int128(timescale) == 0
    }

    /// `n / d` rounded by `rule`, for positive `d`.
    static func divide(_ n: Int128, by d: Int128, rounding rule: FloatingPointRoundingRule) -> Int128 {
        let q = n / d, r = n % d  // truncates toward zero; r has n's sign
        if r == 0 { return q }
        let awayStep: Int128 = n < 0 ? -1 : 1
        let twiceRemainder = (r < 0 ? -r : r) * 2
        switch rule {
        case .towardZero: return q
        case .awayFromZero: return q + awayStep
        case .down: return n < 0 ? q - 1 : q
        case .up: return n < 0 ? q : q + 1
        case .toNearestOrAwayFromZero: return twiceRemainder >= d ? q + awayStep : q
        case .toNearestOrEven:
            if twiceRemainder > d { return q + awayStep }
            if twiceRemainder < d { return q }
            return q % 2 == 0 ? q : q + awayStep
        @unknown default: return twiceRemainder >= d ? q + awayStep : q
        }
    }
}

// MARK: - Comparison

extension Time: Comparable, Hashable {
    /// CMTimeCompare's order: −∞ < every numeric time < indefinite < +∞ < invalid.
    private var rank: Int {
        switch kind {
        case .negativeInfinity: 0
        case .numeric: 1
        case .indefinite: 2
        case .positiveInfinity: 3
        case .invalid: 4
        }
    }

    /// Numeric times compare by exact cross-multiplication (full-width, 128 bits).
    public static func < (a: Time, b: Time) -> Bool {
        if a.kind == .numeric && b.kind == .numeric {
            return Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
        }
        return a.rank < b.rank
    }

    /// `Time(value: 1200, timescale: 600) == .seconds(2)`.
    public static func == (a: Time, b: Time) -> Bool {
        if a.kind == .numeric && b.kind == .numeric {
            return Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
        }
        return a.kind == b.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        if let r = exactSeconds { hasher.combine(r) }
    }
}

// MARK: - Text

extension Time: CustomStringConvertible {
    /// Seconds as messages show them, never a fraction: `3.2 s`, `1.3560546875 s` (exact
    /// decimals), `2.333 s` for 7/3 s (whose exact form ``secondsText`` keeps, as `--json` and
    /// documents do); `+inf`, `-inf`, `indefinite`, `invalid`.
    public var description: String {
        switch kind {
        case .numeric: secondsText.contains("/") ? "\(Time.trimmed(formatted())) s" : "\(secondsText) s"
        case .positiveInfinity: "+inf"
        case .negativeInfinity: "-inf"
        case .indefinite: "indefinite"
        case .invalid: "invalid"
        }
    }

    /// Seconds as people read them, with the unit: `29.4 s`, or `2.467 s` for 37/15 s (whose
    /// exact form ``description`` keeps).
    public var readable: String {
        secondsText.contains("/") ? "\(formatted()) s" : description
    }

    /// The exact seconds without a unit: `3.2`, `0`, `7/3`.
    public var secondsText: String {
        guard let r = exactSeconds else { return description }
        return r.exactDecimal() ?? r.description
    }

    /// Seconds as messages, tables and `history` show them: at most 3 decimals, trailing zeros
    /// trimmed (`3.2`, `1.356` for 1.3560546875, `2.467` for 37/15); exact values stay in
    /// `--json` and documents.
    public var shown: String { isNumeric ? Time.trimmed(formatted()) : description }

    static func trimmed(_ decimal: String) -> String {
        guard decimal.contains(".") else { return decimal }
        var text = decimal
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// Seconds with a fixed number of decimals, for tables: `3.200`. Approximate for thirds.
    public func formatted(decimals: Int = 3) -> String {
        guard isNumeric else { return description }
        var scale: Int128 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Time.divide(Int128(value) * scale, by: Int128(timescale), rounding: .toNearestOrAwayFromZero)
        let negative = scaled < 0
        let magnitude = negative ? -scaled : scaled
        var text = "\(magnitude / scale)"
        if decimals > 0 {
            let fraction = "\(magnitude % scale)"
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return negative ? "-" + text : text
    }

    /// Parses a time as people write it: seconds (`3.2`, `1/3`), seconds with units as ffmpeg
    /// and other tools write them (`3.2s`, `3200ms`, `1m3.2s`, `1h2m`), or a timecode
    /// (`01:03.2`, `00:01:03.200`). Exact: `3.2` is 16/5 s. `end` is handled by callers that know
    /// the timeline, see ``TimeExpression``.
    public init(parsing text: String) throws(CompositionError) {
        let trimmed = text.trimmingWhitespace()
        if let seconds = try Self.withUnits(trimmed) {
            self = try Time(seconds: seconds)
            return
        }
        let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(fields.count) else {
            throw .invalidTime("\"\(text)\" is not a time; write seconds (3.2) or a timecode (00:01:03.200)")
        }
        if fields.count == 1 {
            let r: Rational
            do { r = try Rational(parsing: trimmed) } catch {
                throw .invalidTime("\"\(text)\" is not a time; write seconds (3.2) or a timecode (00:01:03.200)")
            }
            self = try Time(seconds: r)
            return
        }
        // Timecode: [hours:]minutes:seconds[.fraction]
        var total = Rational.zero
        for (position, field) in fields.enumerated() {
            let isLast = position == fields.count - 1
            guard !field.isEmpty, field.allSatisfy({ $0.isASCIIDigit || (isLast && $0 == ".") }),
                  let part = try? Rational(parsing: field), !part.isNegative
            else {
                throw .invalidTime("\"\(text)\" is not a timecode; write HH:MM:SS.mmm, for example 00:01:03.200")
            }
            let sixty = try Rational(60)
            if position > 0 && part >= sixty {
                throw .invalidTime("\"\(text)\" has \(field) in a field that must be below 60")
            }
            total = try total * Rational(60) + part
        }
        self = try Time(seconds: total)
    }
}

extension Time {
    /// `1h2m3.5s`, `500ms`, `2m`: numbers each followed by a unit (h, m, s, ms), largest first,
    /// each at most once; nil when `text` has no unit letter at all.
    static func withUnits(_ text: String) throws(CompositionError) -> Rational? {
        guard text.contains(where: { "hms".contains($0) }), !text.contains(":") else { return nil }
        let units: [(String, Rational)] = [("h", try! Rational(3600)), ("m", try! Rational(60)),
                                           ("s", .one), ("ms", try! Rational(1, 1000))]
        let refusal = CompositionError.invalidTime("\"\(text)\" is not a time; write seconds (3.2 or 3.2s), milliseconds (3200ms), 1m3.2s or a timecode (00:01:03.200)")
        var rest = Substring(text), total = Rational.zero, next = 0
        while !rest.isEmpty {
            let number = rest.prefix(while: { $0.isASCIIDigit || $0 == "." })
            rest = rest.dropFirst(number.count)
            let unit = String(rest.prefix(while: { $0.isLetter }))
            rest = rest.dropFirst(unit.count)
            guard !number.isEmpty, let index = units.firstIndex(where: { $0.0 == unit }), index >= next,
                  let value = try? Rational(parsing: String(number))
            else { throw refusal }
            next = index + 1
            do { total = try total + value * units[index].1 } catch { throw refusal }
        }
        return total
    }
}

extension Time: Codable {
    /// Encoded as a string of exact seconds: `"3.2"`, `"7/3"`, or `"+inf"`, `"-inf"`,
    /// `"indefinite"`, `"invalid"`. Never a JSON number, which readers would turn into a double.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "+inf": self = .positiveInfinity
        case "-inf": self = .negativeInfinity
        case "indefinite": self = .indefinite
        case "invalid": self = .invalid
        default:
            do {
                self = try Time(seconds: Rational(parsing: text))
            } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "\"\(text)\": \(error.description)"))
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch kind {
        case .numeric: try container.encode(secondsText)
        case .positiveInfinity: try container.encode("+inf")
        case .negativeInfinity: try container.encode("-inf")
        case .indefinite: try container.encode("indefinite")
        case .invalid: try container.encode("invalid")
        }
    }
}
