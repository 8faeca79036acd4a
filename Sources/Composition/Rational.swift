import Foundation
/// An exact fraction `numerator / denominator`, always in lowest terms with a positive denominator.
///
/// slowpoke uses `Rational` for rates (`0.25` is `1/4`, NTSC is `30000/1001`) and for the factors
/// that scale durations. Arithmetic is exact: it works in 128-bit intermediates and throws
/// ``CompositionError/overflow(_:)`` when a result no longer fits in 64 bits, rather than rounding.
public struct Rational: Sendable, Hashable {
    public let numerator: Int64
    public let denominator: Int64

    /// Creates `numerator / denominator`, reduced. Throws when the denominator is zero or the
    /// reduced result does not fit.
    public init(_ numerator: Int64, _ denominator: Int64 = 1) throws(CompositionError) {
        guard denominator != 0 else { throw .invalidRational("\(numerator)/0 has a zero denominator") }
        self = try Rational.reduce(Int128(numerator), Int128(denominator))
    }

    /// `-self` (a fraction of Int64.min, which has no negative, stays as it is).
    public var negated: Rational { numerator == .min ? self : Rational(unchecked: -numerator, denominator) }

    private init(unchecked numerator: Int64, _ denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public static let zero = Rational(unchecked: 0, 1)
    public static let one = Rational(unchecked: 1, 1)

    /// Reduces a 128-bit fraction and checks that it fits. The denominator must not be zero.
    public static func reduce(_ n: Int128, _ d: Int128) throws(CompositionError) -> Rational {
        precondition(d != 0, "Rational.reduce with zero denominator")
        var n = n, d = d
        if d < 0 { n = -n; d = -d }
        let g = gcd(n, d)
        if g > 1 { n /= g; d /= g }
        guard let n64 = Int64(exactly: n), let d64 = Int64(exactly: d) else {
            throw .overflow("the fraction \(n)/\(d) does not fit in 64 bits")
        }
        return Rational(unchecked: n64, d64)
    }

    public var isZero: Bool { numerator == 0 }
    public var isNegative: Bool { numerator < 0 }
    public var isPositive: Bool { numerator > 0 }

    /// The nearest `Double`. For display and DSP only; never for decisions about time.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    public var reciprocal: Rational {
        get throws(CompositionError) {
            guard numerator != 0 else { throw .invalidRational("0 has no reciprocal") }
            return try Rational.reduce(Int128(denominator), Int128(numerator))
        }
    }

    public static func + (a: Rational, b: Rational) throws(CompositionError) -> Rational {
        try reduce(Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator),
                   Int128(a.denominator) * Int128(b.denominator))
    }

    public static func - (a: Rational, b: Rational) throws(CompositionError) -> Rational {
        try reduce(Int128(a.numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(a.denominator),
                   Int128(a.denominator) * Int128(b.denominator))
    }

    public static func * (a: Rational, b: Rational) throws(CompositionError) -> Rational {
        try reduce(Int128(a.numerator) * Int128(b.numerator), Int128(a.denominator) * Int128(b.denominator))
    }

    public static func / (a: Rational, b: Rational) throws(CompositionError) -> Rational {
        guard b.numerator != 0 else { throw .invalidRational("division of \(a) by zero") }
        return try reduce(Int128(a.numerator) * Int128(b.denominator), Int128(a.denominator) * Int128(b.numerator))
    }
}

extension Rational: Comparable {
    /// Compares by cross-multiplication in 128 bits: exact, never through `Double`.
    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }
}

extension Rational: CustomStringConvertible {
    /// `1/4`, `3`, `-7/2`, `30000/1001`.
    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }

    /// The exact decimal expansion when the fraction has one of at most `maxDigits` fractional
    /// digits (`1/4` is `0.25`), otherwise nil (`1/3`).
    public func exactDecimal(maxDigits: Int = 12) -> String? {
        var d = denominator
        var twos = 0, fives = 0
        while d % 2 == 0 { d /= 2; twos += 1 }
        while d % 5 == 0 { d /= 5; fives += 1 }
        guard d == 1 else { return nil }
        let digits = max(twos, fives)
        guard digits <= maxDigits else { return nil }
        var scale: Int128 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int128(numerator) * scale / Int128(denominator)
        let negative = scaled < 0
        let magnitude = negative ? -scaled : scaled
        let whole = magnitude / scale
        let fraction = magnitude % scale
        var text = "\(whole)"
        if digits > 0 {
            var fractionText = "\(fraction)"
            fractionText = String(repeating: "0", count: digits - fractionText.count) + fractionText
            while fractionText.hasSuffix("0") { fractionText.removeLast() }
            if !fractionText.isEmpty { text += "." + fractionText }
        }
        return negative ? "-" + text : text
    }

    /// How messages show a value a user may have typed as a fraction: the exact decimal when
    /// it has at most 6 digits (`0.25`, `0.015625` for 1/64), otherwise 3 significant digits
    /// below 1 (`0.333` for 1/3, `0.0111` for 1/90) and 3 decimals above (`3.333`). Never a
    /// fraction: those stay in `--json` and documents.
    public var readable: String {
        if let exact = exactDecimal(maxDigits: 6) { return exact }
        let magnitude = abs(doubleValue)
        if magnitude < 1 { return Time.trimmed(String(format: "%.3g", doubleValue)) }
        return Time.trimmed(String(format: "%.3f", doubleValue))
    }

    /// `text` with every fraction in it (`1/64`, `100/3`) written as ``readable`` decimals, for
    /// messages that repeat what a user typed: `range 1/3-100/3` reads `range 0.333-33.333`.
    public static func decimals(in text: String) -> String {
        guard text.contains("/") else { return text }
        var out = ""
        var rest = Substring(text)
        while let match = rest.firstMatch(of: #/(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)/#) {
            out += rest[..<match.range.lowerBound]
            if let value = try? Rational(parsing: String(match.output.0)) {
                out += value.readable
            } else {
                out += match.output.0
            }
            rest = rest[match.range.upperBound...]
        }
        return out + rest
    }

    /// As people read a rate: exact up to 4 decimals (`0.25`, `0.0625`), else 3, trailing zeros
    /// trimmed (`0.987` for 1024/1037, `0.333` for 1/3); exact fractions stay in `--json` and documents.
    public var shown: String {
        if let exact = exactDecimal(maxDigits: 4) { return exact }
        return Time.trimmed(String(format: "%.3f", doubleValue))
    }
}

extension Rational: Codable {
    /// Encoded as a string, `"1/4"` or `"0.25"`, so that no JSON reader turns it into a double.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try Rational(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(exactDecimal() ?? description)
    }
}

extension Rational {
    /// Parses `0.25`, `.5`, `4`, `1/3`, `30000/1001`, `-2.5` exactly. A decimal is read as the
    /// fraction it spells (`3.2` is `16/5`), never through `Double`.
    public init(parsing text: String) throws(CompositionError) {
        if let plain = try Rational.plain(text) {
            self = plain
            return
        }
        let trimmed = text.trimmingWhitespace()
        if let slash = trimmed.firstIndex(of: "/") {
            // One slash: `4/2/2` is not a number (it was read as 4 / (2/2)).
            // One slash, and both sides plain numbers, said of the whole text: `4/2/2` is not a
            // number (it was read as 4 / (2/2)).
            func part(_ part: Substring) throws(CompositionError) -> Rational {
                guard !part.contains("/") else { throw .invalidRational("\"\(text)\" is not a number; write 0.25, 1/4 or 30000/1001") }
                do throws(CompositionError) { return try Rational(parsing: String(part)) } catch {
                    guard case .invalidRational = error else { throw error }
                    throw .invalidRational("\"\(text)\" is not a number; write 0.25, 1/4 or 30000/1001")
                }
            }
            let top = try part(trimmed[..<slash])
            let bottom = try part(trimmed[trimmed.index(after: slash)...])
            guard !bottom.isZero else { throw .invalidRational("\"\(text)\" divides by zero") }
            self = try top / bottom
            return
        }
        var body = Substring(trimmed)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let wholeText = parts[0]
        let fractionText = parts.count > 1 ? parts[1] : ""
        guard !(wholeText.isEmpty && fractionText.isEmpty),
              wholeText.allSatisfy(\.isASCIIDigit), fractionText.allSatisfy(\.isASCIIDigit),
              (parts.count == 1 || !fractionText.isEmpty || !wholeText.isEmpty)
        else { throw .invalidRational("\"\(text)\" is not a number; write 0.25, 1/4 or 30000/1001") }
        guard fractionText.count <= 18, wholeText.count <= 18 else {
            throw .overflow("\"\(text)\" has too many digits")
        }
        var numerator = Int128(wholeText.isEmpty ? "0" : String(wholeText))!
        var denominator: Int128 = 1
        for digit in fractionText {
            numerator = numerator * 10 + Int128(digit.wholeNumberValue!)
            denominator *= 10
        }
        self = try Rational.reduce(negative ? -numerator : numerator, denominator)
    }
}

extension Rational {
    /// The forms documents are made of (`3.2`, `-0.5`, `7/3`), read straight from their ASCII
    /// bytes, to the same value as ``init(parsing:)``'s general path: a document holds
    /// thousands of them. Nil for anything else (spaces, signs before a fraction, `3.`, a zero
    /// denominator, more than 18 digits), which the general path reads or refuses.
    static func plain(_ text: String) throws(CompositionError) -> Rational? {
        var negative = false, part = 0  // 0: whole, 1: after the point, 2: after the slash
        var whole: Int128 = 0, fraction: Int128 = 0, scale: Int128 = 1, denominator: Int128 = 0
        var digits = [0, 0, 0]
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where offset == 0:
                negative = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int128(byte - UInt8(ascii: "0"))
                digits[part] += 1
                guard digits[part] <= 18 else { return nil }
                switch part {
                case 0: whole = whole * 10 + digit
                case 1: fraction = fraction * 10 + digit; scale *= 10
                default: denominator = denominator * 10 + digit
                }
            case UInt8(ascii: ".") where part == 0:
                part = 1
            case UInt8(ascii: "/") where part == 0 && !negative:
                part = 2
            default:
                return nil
            }
        }
        guard digits[0] > 0, part == 0 || digits[part] > 0 else { return nil }
        if part == 2 { return denominator == 0 ? nil : try reduce(whole, denominator) }
        let numerator = whole * scale + fraction
        return try reduce(negative ? -numerator : numerator, scale)
    }

    /// The least common multiple of two positive integers, or nil when it exceeds `limit`
    /// (used to find a timescale in which several times are all exact).
    public static func leastCommonMultiple(_ a: Int64, _ b: Int64, limit: Int64 = .max) -> Int64? {
        guard a > 0, b > 0 else { return nil }
        let result = Int128(a) / gcd(Int128(a), Int128(b)) * Int128(b)
        return result <= Int128(limit) ? Int64(result) : nil
    }
}

func gcd(_ a: Int128, _ b: Int128) -> Int128 {
    var a = a < 0 ? -a : a
    var b = b < 0 ? -b : b
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    /// The string without leading and trailing white space.
    public func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
