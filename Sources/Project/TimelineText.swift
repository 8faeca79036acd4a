import Composition
import Foundation

/// The timeline as the document encoder (pretty-printed, keys sorted) writes it, one segment
/// at a time. Encoding the whole timeline at once built Foundation's tree of JSON values for
/// every segment (about 1.5 KB each) before writing a byte; here each segment is written
/// straight into the document's bytes. ``DocumentStore/encode(_:)`` encodes the document with a
/// placeholder for the timeline (as for the history, see ``HistoryText``) and splices this in.
/// The bytes are the same: `TimelineTextTests` compares them with the encoder's.
enum TimelineText {
    static let placeholder = "slowpoke: the timeline is written after encoding"
    static let placeholderKey = CodingUserInfoKey(rawValue: "slowpoke.timelinePlaceholder")!

    /// `document` (the encoder's bytes of a document holding the placeholder) with `timeline`
    /// written in its place.
    static func splice(_ timeline: Composition, into document: Data, encoder: JSONEncoder) throws -> Data {
        try PlaceholderSplice.splice(member: "timeline", placeholder: placeholder, into: document,
                                     extra: 256 * timeline.tracks.reduce(0) { $0 + $1.segments.count }) { out in
            try write(timeline, encoder: encoder, into: &out)
        }
    }

    /// The timeline as the value of a top-level member (depth 1).
    private static func write(_ timeline: Composition, encoder: JSONEncoder, into out: inout Data) throws {
        out.append(contentsOf: "{\n    \"tracks\" : [".utf8)
        guard !timeline.tracks.isEmpty else { return out.append(contentsOf: "\n\n    ]\n  }".utf8) }
        for (index, track) in timeline.tracks.enumerated() {
            out.append(contentsOf: (index == 0 ? "\n      {" : ",\n      {").utf8)
            out.append(contentsOf: "\n        \"id\" : \(track.trackID),".utf8)
            out.append(contentsOf: "\n        \"mediaType\" : ".utf8)
            out.append(try encoder.encode(track.mediaType))
            out.append(contentsOf: ",\n        \"segments\" : [".utf8)
            if track.segments.isEmpty { out.append(contentsOf: "\n\n        ]".utf8) } else {
                for (k, segment) in track.segments.enumerated() {
                    out.append(contentsOf: (k == 0 ? "\n          " : ",\n          ").utf8)
                    write(segment, into: &out)
                }
                out.append(contentsOf: "\n        ]".utf8)
            }
            out.append(contentsOf: "\n      }".utf8)
        }
        out.append(contentsOf: "\n    ]\n  }".utf8)
    }

    /// One segment at depth 5, its members in the encoder's (sorted) order, as its `Codable`
    /// conformance encodes them: written directly, since the encoder's set-up for each of a
    /// thousand segments cost more than the encoding. Times and rates are digits, points,
    /// slashes and signs, which JSON strings hold as they are.
    private static func write(_ segment: CompositionTrackSegment, into out: inout Data) {
        var members: [String] = []
        if let held = segment.heldTime { members.append("\"hold\" : \"\(text(held))\"") }
        if let rate = segment.signedRate { members.append("\"rate\" : \"\(rate.exactDecimal() ?? rate.description)\"") }
        if segment.isReversed { members.append("\"reverse\" : true") }
        if let source = segment.source { members.append("\"source\" : \(text(source))") }
        members.append("\"target\" : \(text(segment.target))")
        out.append(contentsOf: "{\n            ".utf8)
        out.append(contentsOf: members.joined(separator: ",\n            ").utf8)
        out.append(contentsOf: "\n          }".utf8)
    }

    private static func text(_ range: TimeRange) -> String {
        "{\n              \"duration\" : \"\(text(range.duration))\",\n              \"start\" : \"\(text(range.start))\"\n            }"
    }

    private static func text(_ time: Time) -> String {
        switch time.kind {
        case .numeric: time.secondsText
        case .positiveInfinity: "+inf"
        case .negativeInfinity: "-inf"
        case .indefinite: "indefinite"
        case .invalid: "invalid"
        }
    }
}
