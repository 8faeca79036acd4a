import Foundation
import Composition

/// A document's history entries as its bytes hold them: found without decoding them (see
/// ``JSONOutline``), decoded one by one when asked, and written back as they were.
///
/// Only the bytes of a document whose checksum matches are read this way: slowpoke wrote them
/// (see ``StoredTimeline``), so the entries are the document encoder's text at the depth where
/// they are written back, and an unchanged document saves to the same bytes. `slowpoke verify`
/// and documents without a matching checksum decode every entry, as before.
///
///     {
///       "checksum" : …,
///       "format" : "slowpoke",
///       "history" : {                   ← read: the value's bytes; written: this layout
///         "applied" : 2,
///         "entries" : [
///           { "date" : …, "edit" : … },  ← each entry's bytes, kept as they are
///           { … }
///         ]
///       },
///       …
struct HistoryText: Sendable {
    /// The document's bytes.
    private let source: Data
    /// Where each entry lies in `source`, as offsets from its start.
    private var ranges: [Range<Int>]
    /// The document's name, for errors.
    private let documentName: String

    var count: Int { ranges.count }

    mutating func truncate(to count: Int) { ranges.removeSubrange(count...) }

    /// Entry `index`, decoded.
    func entry(_ index: Int) throws(ProjectError) -> EditHistory.Entry {
        let range = ranges[index]
        return try decode(EditHistory.Entry.self, from: source[(source.startIndex + range.lowerBound)..<(source.startIndex + range.upperBound)],
                          at: ["history", "entries", "[\(index)]"])
    }

    /// The first `count` entries, decoded in one pass: the bytes from the first entry to the
    /// `count`th hold only entries, commas and whitespace, so in brackets they are an array.
    func entries(prefix count: Int) throws(ProjectError) -> [EditHistory.Entry] {
        guard count > 0 else { return [] }
        var array = Data("[".utf8)
        array.append(source[(source.startIndex + ranges[0].lowerBound)..<(source.startIndex + ranges[count - 1].upperBound)])
        array.append(UInt8(ascii: "]"))
        return try decode([EditHistory.Entry].self, from: array, at: ["history", "entries"])
    }

    /// The entries below `limit` whose text can record an edit named in `names`: those holding
    /// one of the names in quotes, or any escape (which could spell one). Superset of the
    /// entries that do; the caller decodes these and looks.
    func indices(below limit: Int, mayRecord names: Set<String>) -> [Int] {
        let names = names.map { Array("\($0)\"".utf8) }
        return source.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [Int] in
            (0..<limit).filter { index in
                // One pass over the entry: at each quote, does a name and its closing quote follow?
                let range = ranges[index]
                for i in range {
                    if bytes[i] == UInt8(ascii: "\\") { return true }
                    guard bytes[i] == UInt8(ascii: "\"") else { continue }
                    for name in names where i + name.count < range.upperBound {
                        if name.indices.allSatisfy({ bytes[i + 1 + $0] == name[$0] }) { return true }
                    }
                }
                return false
            }
        }
    }

    /// Whether both hold the same entries' bytes (for comparing histories that cannot be decoded).
    func isSame(as other: HistoryText?) -> Bool {
        guard let other, count == other.count else { return false }
        return zip(ranges, other.ranges).allSatisfy { a, b in
            source[(source.startIndex + a.lowerBound)..<(source.startIndex + a.upperBound)]
                == other.source[(other.source.startIndex + b.lowerBound)..<(other.source.startIndex + b.upperBound)]
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data, at path: [String]) throws(ProjectError) -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw .corruptDocument(path: documentName, reason: DocumentStore.describe(error, under: path))
        } catch {
            throw .corruptDocument(path: documentName, reason: "\(error)")
        }
    }

    // MARK: Reading

    /// The history in a document's bytes: where its value lies, how many of its entries are
    /// applied, and the entries. Nil unless the bytes are an object whose `history` holds a
    /// plain whole `applied` within the entries' count and an array of `entries` (the caller
    /// then decodes the document the ordinary way, which says what is wrong).
    static func read(_ data: Data, name: String) -> (value: Range<Data.Index>, applied: Int, text: HistoryText)? {
        let found: (Range<Int>, Int, [Range<Int>])? = data.withUnsafeBytes { bytes in
            // One pass over the bytes: the history and its entries are walked into, not skipped
            // first (a 100,000-edit history is 23 MB).
            let outline = JSONOutline(bytes: bytes)
            var history: Range<Int>?, applied: Int?, entries: [Range<Int>]?
            var twice = false
            func entry(_ start: Int) -> Int? {
                guard let end = outline.skip(start, before: bytes.count) else { return nil }
                entries?.append(start..<end)
                return end
            }
            func member(_ key: Range<Int>, _ start: Int) -> Int? {
                if outline.key(key, is: "applied") {
                    guard let end = outline.skip(start, before: bytes.count) else { return nil }
                    twice = twice || applied != nil
                    applied = outline.integer(in: start..<end) ?? -1
                    return end
                }
                guard outline.key(key, is: "entries") else { return outline.skip(start, before: bytes.count) }
                twice = twice || entries != nil
                entries = []
                return outline.array(at: start, before: bytes.count, entry)
            }
            let top = outline.object(at: outline.skipSpace(0, before: bytes.count), before: bytes.count) { key, start in
                guard outline.key(key, is: "history") else { return outline.skip(start, before: bytes.count) }
                twice = twice || history != nil
                guard let end = outline.object(at: start, before: bytes.count, member) else { return nil }
                history = start..<end
                return end
            }
            guard let top, outline.end(top, of: 0..<bytes.count), !twice, let history, let applied, let entries,
                  (0...entries.count).contains(applied) else { return nil }
            return (history, applied, entries)
        }
        guard let (value, applied, ranges) = found else { return nil }
        let text = HistoryText(source: data, ranges: ranges, documentName: name)
        return ((data.startIndex + value.lowerBound)..<(data.startIndex + value.upperBound), applied, text)
    }

    // MARK: Writing

    /// What the document encoder writes in place of a history it leaves to ``write(_:encoder:)``.
    static let placeholder = "slowpoke: the history is written after encoding"
    static let placeholderKey = CodingUserInfoKey(rawValue: "slowpoke.historyPlaceholder")!

    /// `document`, the encoder's bytes of a document holding the placeholder, with the history
    /// written in its place, as the encoder would have written it.
    static func splice(_ history: EditHistory, into document: Data, encoder: JSONEncoder) throws -> Data {
        try PlaceholderSplice.splice(member: "history", placeholder: placeholder, into: document, extra: history.text?.source.count ?? 0) { out in
            try write(history, encoder: encoder, into: &out)
        }
    }

    /// The history as the document encoder (pretty-printed, keys sorted) writes it as the value
    /// of a top-level member: entries still as text copied, the others encoded and indented.
    private static func write(_ history: EditHistory, encoder: JSONEncoder, into out: inout Data) throws {
        out.append(contentsOf: "{\n    \"applied\" : \(history.applied),\n    \"entries\" : [".utf8)
        let indent = Data("\n      ".utf8)
        var first = true
        func separate() {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(indent)
            first = false
        }
        if let text = history.text {
            for range in text.ranges {
                separate()
                out.append(text.source[(text.source.startIndex + range.lowerBound)..<(text.source.startIndex + range.upperBound)])
            }
        }
        for entry in history.recorded {
            separate()
            // The entry encoded alone is at depth 0; in the document it is at depth 3. Strings
            // hold no newline (the encoder escapes it), so each newline starts a line.
            for byte in try encoder.encode(entry) {
                out.append(byte)
                if byte == 0x0A { out.append(contentsOf: "      ".utf8) }
            }
        }
        out.append(contentsOf: (first ? "\n\n    ]\n  }" : "\n    ]\n  }").utf8)
    }
}
