import Foundation

/// Parses JSON (RFC 8259, UTF-8) into the tree `JSONSerialization` gives (`[String: Any]`,
/// `[Any]`, `String`, `NSNumber` for numbers and booleans, `NSNull`), in a fraction of its
/// memory: OpenTimelineIO files are read into such a tree, and on Linux `JSONSerialization`'s
/// took 100 MB for a 2.5 MB, 3000-clip timeline (40 bytes of memory for every byte of text),
/// nine tenths of `otio import`'s peak. This one keeps Swift's own strings (short keys stored
/// inline), arrays and dictionaries.
///
/// The input may come from anyone: nesting deeper than ``maximumDepth`` is refused instead of
/// recursing without bound, as are invalid UTF-8, unpaired surrogate escapes, control
/// characters in strings, numbers out of `Double`'s range, and anything after the value.
/// Duplicate keys keep the last value. Like `JSONSerialization`, a comma may end an object's
/// members or an array's items (files that imported before still do).
struct JSONTreeParser {
    /// Why the text is not JSON, with the byte offset where that was found.
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0
    /// Objects already made, by their text (see ``object()``).
    private var made: [ArraySlice<UInt8>: Any] = [:]

    /// The value `data` holds (an object or an array at the top, as `JSONSerialization`
    /// requires without `.fragmentsAllowed`).
    static func parse(_ data: Data) throws(Failure) -> Any {
        var parser = JSONTreeParser(bytes: [UInt8](data))
        // A UTF-8 byte order mark is skipped, as JSONSerialization does.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.at = 3 }
        parser.skipSpace()
        guard let first = parser.peek(), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            throw parser.failure("the top level is not an object or an array")
        }
        let value = try parser.value()
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.failure("text follows the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: at, reason: reason) }

    private func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        // A switch, not `[...].contains`: that made an array for every byte in debug builds,
        // where OTIORecordedEditsTests spent most of its 12 s here.
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }

    private mutating func expect(_ literal: String, _ result: Any) throws(Failure) -> Any {
        let utf8 = Array(literal.utf8)
        guard bytes.count - at >= utf8.count, bytes[at ..< at + utf8.count].elementsEqual(utf8) else { throw failure("not a JSON value") }
        at += utf8.count
        return result
    }

    private mutating func value() throws(Failure) -> Any {
        skipSpace()
        guard let byte = peek() else { throw failure("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): return try expect("true", NSNumber(value: true))
        case UInt8(ascii: "f"): return try expect("false", NSNumber(value: false))
        case UInt8(ascii: "n"): return try expect("null", NSNull())
        default: return try number()
        }
    }

    private mutating func nested<T>(_ body: (inout JSONTreeParser) throws(Failure) -> T) throws(Failure) -> T {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("values nest more than \(Self.maximumDepth) deep") }
        defer { depth -= 1 }
        at += 1
        return try body(&self)
    }

    /// An object; one whose text (up to ``sharedLength`` bytes) was seen before is the value
    /// made then, sharing its storage. An OpenTimelineIO file repeats the same objects in every
    /// clip (its media reference, empty metadata, the same time warp): a 3000-clip tree took
    /// 9 MB instead of 16.
    private mutating func object() throws(Failure) -> Any {
        let begin = at
        let value = try newObject()
        guard at - begin <= Self.sharedLength else { return value }
        if let known = made[bytes[begin ..< at]] { return known }
        made[bytes[begin ..< at]] = value
        return value
    }

    static let sharedLength = 1024

    private mutating func newObject() throws(Failure) -> Any {
        try nested { (p: inout JSONTreeParser) throws(Failure) -> Any in
            var members: [String: Any] = [:]
            p.skipSpace()
            if p.peek() == UInt8(ascii: "}") { p.at += 1; return members }
            while true {
                p.skipSpace()
                if p.peek() == UInt8(ascii: "}") && !members.isEmpty { p.at += 1; return members }
                guard p.peek() == UInt8(ascii: "\"") else { throw p.failure("an object's key is not a string") }
                let key = try p.string()
                p.skipSpace()
                guard p.peek() == UInt8(ascii: ":") else { throw p.failure("no colon after an object's key") }
                p.at += 1
                members[key] = try p.value()
                p.skipSpace()
                switch p.peek() {
                case UInt8(ascii: ","): p.at += 1
                case UInt8(ascii: "}"): p.at += 1; return members
                default: throw p.failure("an object's member is followed by neither a comma nor a closing brace")
                }
            }
        }
    }

    private mutating func array() throws(Failure) -> Any {
        try nested { (p: inout JSONTreeParser) throws(Failure) -> Any in
            var items: [Any] = []
            p.skipSpace()
            if p.peek() == UInt8(ascii: "]") { p.at += 1; return items }
            while true {
                p.skipSpace()
                if p.peek() == UInt8(ascii: "]") && !items.isEmpty { p.at += 1; return items }
                items.append(try p.value())
                p.skipSpace()
                switch p.peek() {
                case UInt8(ascii: ","): p.at += 1
                case UInt8(ascii: "]"): p.at += 1; return items
                default: throw p.failure("an array's item is followed by neither a comma nor a closing bracket")
                }
            }
        }
    }

    /// A string from its opening quote: the bytes between escapes are copied as they are, then
    /// checked as UTF-8 once.
    private mutating func string() throws(Failure) -> String {
        at += 1
        // Most strings (every key) hold no escape: read in place.
        var end = at
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { at = end + 1 }
            guard let text = String(validating: bytes[at ..< end], as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
            return text
        }
        var out = Array(bytes[at ..< end])
        at = end
        while true {
            guard at < bytes.count else { throw failure("a string is not closed") }
            let byte = bytes[at]
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                at += 1
                try escape(into: &out)
            case 0..<0x20:
                throw failure("a string holds a control character")
            default:
                out.append(byte)
                at += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(Failure) {
        guard let byte = peek() else { throw failure("a string ends in a backslash") }
        at += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - at >= 6, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw failure("a string escapes half of a surrogate pair")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a string escapes half of a surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a string escapes half of a surrogate pair")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a string escapes no character") }
            out += Array(String(Character(unicode)).utf8)
        default:
            throw failure("a string holds an unknown escape")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - at >= 4 else { throw failure("a \\u escape is cut short") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape holds a character that is not hexadecimal")
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    /// A number as JSON writes it: a whole number that fits 64 bits as an integer, any other as
    /// a `Double` (finite).
    private mutating func number() throws(Failure) -> Any {
        let start = at
        func digits(_ p: inout JSONTreeParser) -> Int {
            let first = p.at
            while p.at < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.at]) { p.at += 1 }
            return p.at - first
        }
        if peek() == UInt8(ascii: "-") { at += 1 }
        let whole = at
        let count = digits(&self)
        guard count > 0, !(count > 1 && bytes[whole] == UInt8(ascii: "0")) else { at = start; throw failure("not a JSON value") }
        var integral = true
        if peek() == UInt8(ascii: ".") {
            at += 1
            integral = false
            guard digits(&self) > 0 else { throw failure("a number has no digits after its point") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            at += 1
            integral = false
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { at += 1 }
            guard digits(&self) > 0 else { throw failure("a number has no digits in its exponent") }
        }
        let text = String(decoding: bytes[start ..< at], as: UTF8.self)
        if integral, let integer = Int64(text) { return NSNumber(value: integer) }
        guard let double = Double(text), double.isFinite else { throw Failure(offset: start, reason: "a number is out of range") }
        return NSNumber(value: double)
    }
}
