/// Finds text in the string literals of Swift source, and only there: comments are skipped,
/// interpolations are read as code (so a literal inside one is a literal too), and multi-line
/// (`"""`) and raw (`#"…"#`) strings are followed to their own closing delimiters.
struct StringLiteralScanner {
    /// A literal's text that matched, and the line it is on.
    struct Hit: Equatable, CustomStringConvertible {
        let line: Int
        let text: String
        var description: String { "line \(line): \(text)" }
    }

    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    /// The `--` followed by a letter found in literals, with the rest of their word.
    private(set) var hits: [Hit] = []
    /// How many literals were read.
    private(set) var literals = 0

    /// Scans `source` and returns the literal text that names a command-line flag
    /// (`--` then a letter), and how many literals it read.
    static func flags(in source: String) -> (hits: [Hit], literals: Int) {
        var scanner = StringLiteralScanner(bytes: Array(source.utf8))
        scanner.code(untilClosingParenthesis: false)
        return (scanner.hits, scanner.literals)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func at(_ k: Int) -> UInt8 { i + k < bytes.count ? bytes[i + k] : 0 }

    private static let quote = UInt8(ascii: "\""), hash = UInt8(ascii: "#"), slash = UInt8(ascii: "/"),
                       star = UInt8(ascii: "*"), newline = UInt8(ascii: "\n"), backslash = UInt8(ascii: "\\"),
                       open = UInt8(ascii: "("), close = UInt8(ascii: ")"), dash = UInt8(ascii: "-")

    /// Reads code up to the end, or past the `)` that closes an interpolation.
    private mutating func code(untilClosingParenthesis: Bool) {
        var depth = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == Self.newline { line += 1; i += 1 }
            else if c == Self.slash && at(1) == Self.slash { while i < bytes.count && bytes[i] != Self.newline { i += 1 } }
            else if c == Self.slash && at(1) == Self.star { blockComment() }
            else if c == Self.hash || c == Self.quote {
                var hashes = 0
                while at(hashes) == Self.hash { hashes += 1 }
                if at(hashes) == Self.quote { i += hashes; string(hashes: hashes) } else { i += max(1, hashes) }
            } else if c == Self.open { depth += 1; i += 1 }
            else if c == Self.close {
                i += 1
                if untilClosingParenthesis && depth == 0 { return }
                depth -= 1
            } else { i += 1 }
        }
    }

    /// Skips a block comment, which may hold others.
    private mutating func blockComment() {
        var depth = 0
        repeat {
            if bytes[i] == Self.slash && at(1) == Self.star { depth += 1; i += 2 }
            else if bytes[i] == Self.star && at(1) == Self.slash { depth -= 1; i += 2 }
            else { if bytes[i] == Self.newline { line += 1 }; i += 1 }
        } while depth > 0 && i < bytes.count
    }

    /// Whether `hashes` `#` follow position `i + offset`.
    private func hashes(_ hashes: Int, after offset: Int) -> Bool { (0..<hashes).allSatisfy { at(offset + $0) == Self.hash } }

    /// Reads a literal from its opening quote to past its closing delimiter.
    private mutating func string(hashes: Int) {
        literals += 1
        let multiline = at(1) == Self.quote && at(2) == Self.quote
        i += multiline ? 3 : 1
        while i < bytes.count {
            let c = bytes[i]
            if c == Self.newline { line += 1; i += 1 }
            else if c == Self.backslash && self.hashes(hashes, after: 1) {
                i += 1 + hashes
                if at(0) == Self.open { i += 1; code(untilClosingParenthesis: true) } else { i += 1 }
            } else if c == Self.quote && (!multiline || (at(1) == Self.quote && at(2) == Self.quote))
                        && self.hashes(hashes, after: multiline ? 3 : 1) {
                i += (multiline ? 3 : 1) + hashes
                return
            } else if c == Self.dash && at(1) == Self.dash && Self.isLetter(at(2)) && (i == 0 || bytes[i - 1] != Self.dash) {
                var end = i + 2
                while end < bytes.count && (Self.isLetter(bytes[end]) || bytes[end] == Self.dash) { end += 1 }
                hits.append(Hit(line: line, text: String(decoding: bytes[i..<end], as: UTF8.self)))
                i = end
            } else { i += 1 }
        }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
}
