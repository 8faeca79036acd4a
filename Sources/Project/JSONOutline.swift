import Foundation

/// Where the members of a JSON object and the elements of a JSON array lie in a document's
/// bytes, found without building any value: strings are skipped to their closing quote (past
/// escapes), objects and arrays to their closing bracket.
///
///     { "applied" : 2, "entries" : [ {…}, {…} ] }
///       ╰─ key ─╯   ╰value╯  ╰─ key ─╯ ╰────── value ─────╯
///
/// It checks the structure it walks (quotes, brackets, commas, colons), not the text of numbers
/// and literals, nor the inside of the values it skips: those are checked by whoever decodes
/// them. Offsets are from the start of the bytes. Every function returns nil for bytes it
/// cannot follow, and the caller then decodes the document the ordinary way.
struct JSONOutline {
    /// One member of an object: the bytes of its key between the quotes, and of its value.
    struct Member {
        let key: Range<Int>
        let value: Range<Int>
    }

    let bytes: UnsafeRawBufferPointer

    /// The members of the object at `range` (which holds just the object, maybe with
    /// whitespace around it), in order.
    func members(ofObjectIn range: Range<Int>) -> [Member]? {
        var members: [Member] = []
        let start = skipSpace(range.lowerBound, before: range.upperBound)
        guard let end = object(at: start, before: range.upperBound, { key, value in
            guard let end = valueEnd(value, before: range.upperBound) else { return nil }
            members.append(Member(key: key, value: value..<end))
            return end
        }), self.end(end, of: range) else { return nil }
        return members
    }

    /// The elements of the array at `range`, in order.
    func elements(ofArrayIn range: Range<Int>) -> [Range<Int>]? {
        var elements: [Range<Int>] = []
        let start = skipSpace(range.lowerBound, before: range.upperBound)
        guard let end = array(at: start, before: range.upperBound, { element in
            guard let end = valueEnd(element, before: range.upperBound) else { return nil }
            elements.append(element..<end)
            return end
        }), self.end(end, of: range) else { return nil }
        return elements
    }

    /// Walks the object whose `{` is at `start`, calling `member` with each member's key (the
    /// bytes between its quotes) and where its value starts; `member` returns where the value
    /// ends (skipping it with ``skip(_:before:)``, or walking into it). Returns where the object
    /// ends, just past its `}`. One pass: a value walked into is not skipped too.
    func object(at start: Int, before limit: Int, _ member: (Range<Int>, Int) -> Int?) -> Int? {
        guard start < limit, bytes[start] == UInt8(ascii: "{") else { return nil }
        var i = skipSpace(start + 1, before: limit)
        if i < limit, bytes[i] == UInt8(ascii: "}") { return i + 1 }
        while true {
            guard i < limit, bytes[i] == UInt8(ascii: "\""), let keyEnd = stringEnd(i, before: limit) else { return nil }
            let key = (i + 1)..<(keyEnd - 1)
            i = skipSpace(keyEnd, before: limit)
            guard i < limit, bytes[i] == UInt8(ascii: ":") else { return nil }
            guard let valueEnd = member(key, skipSpace(i + 1, before: limit)) else { return nil }
            i = skipSpace(valueEnd, before: limit)
            guard i < limit else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return i + 1 }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(i + 1, before: limit)
        }
    }

    /// Walks the array whose `[` is at `start` as ``object(at:before:_:)`` walks an object.
    func array(at start: Int, before limit: Int, _ element: (Int) -> Int?) -> Int? {
        guard start < limit, bytes[start] == UInt8(ascii: "[") else { return nil }
        var i = skipSpace(start + 1, before: limit)
        if i < limit, bytes[i] == UInt8(ascii: "]") { return i + 1 }
        while true {
            guard let valueEnd = element(i) else { return nil }
            i = skipSpace(valueEnd, before: limit)
            guard i < limit else { return nil }
            if bytes[i] == UInt8(ascii: "]") { return i + 1 }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(i + 1, before: limit)
        }
    }

    /// Just past the value that starts at `start`.
    func skip(_ start: Int, before limit: Int) -> Int? { valueEnd(start, before: limit) }

    /// Whether the key at `range` is exactly `name` (a key with escapes never is: the caller
    /// then falls back to decoding).
    func key(_ range: Range<Int>, is name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { name in zip(range, name).allSatisfy { bytes[$0] == $1 } }
    }

    /// The whole number at `range`, written as plain digits.
    func integer(in range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 18 else { return nil }
        var value = 0
        for i in range {
            guard bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
        }
        return value
    }

    /// Whether only whitespace follows `index` up to the end of `range`.
    func end(_ index: Int, of range: Range<Int>) -> Bool {
        skipSpace(index, before: range.upperBound) == range.upperBound
    }

    func skipSpace(_ index: Int, before limit: Int) -> Int {
        var i = index
        while i < limit, Self.isSpace(bytes[i]) { i += 1 }
        return i
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }

    /// Just past the closing quote of the string whose opening quote is at `index`.
    private func stringEnd(_ index: Int, before limit: Int) -> Int? {
        var i = index + 1
        while i < limit {
            switch bytes[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return nil
    }

    /// Just past the value that starts at `index`.
    private func valueEnd(_ index: Int, before limit: Int) -> Int? {
        guard index < limit else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return stringEnd(index, before: limit)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Brackets are only counted, not matched by kind: the decoder of the value checks
            // that; a document whose counts balance but kinds do not fails there.
            var depth = 0
            var i = index
            while i < limit {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let next = stringEnd(i, before: limit) else { return nil }
                    i = next
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            var i = index + 1
            while i < limit, !Self.isSpace(bytes[i]), bytes[i] != UInt8(ascii: ","), bytes[i] != UInt8(ascii: "}"),
                  bytes[i] != UInt8(ascii: "]") { i += 1 }
            return i
        default:
            return nil
        }
    }
}
