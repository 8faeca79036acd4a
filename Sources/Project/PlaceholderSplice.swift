import Foundation

/// How a document's large members are written: the encoder writes a placeholder string for the
/// member (its coding user-info key set), and the member's own writer puts its text in the
/// placeholder's place, a piece at a time (``TimelineText``, ``HistoryText``).
enum PlaceholderSplice {
    /// `document` with the top-level member `name`'s placeholder value replaced by what `write`
    /// appends; `extra` sizes the buffer beyond the document.
    static func splice(member name: String, placeholder: String, into document: Data, extra: Int,
                       write: (inout Data) throws -> Void) throws -> Data {
        guard let found = document.firstRange(of: Data("\"\(name)\" : \"\(placeholder)\"".utf8)) else {
            throw EncodingError.invalidValue(placeholder, .init(codingPath: [], debugDescription: "the \(name)'s placeholder is missing"))
        }
        var out = Data()
        out.reserveCapacity(document.count + extra)
        out.append(document[..<found.lowerBound])
        out.append(contentsOf: "\"\(name)\" : ".utf8)
        try write(&out)
        out.append(document[found.upperBound...])
        return out
    }
}
