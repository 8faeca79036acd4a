import Foundation
import Composition

/// The slowpoke edits written beside a timeline (`metadata.slowpoke.edits`), so that slowpoke
/// imports its own files exactly (see ``OTIO``'s "Its own files import exactly").
///
/// An import rebuilds a timeline from remove, scale and insert edits on the whole movie. Each
/// order of them passes through times that the final timeline never holds (the untouched rest
/// of the movie, shifted by what is already placed), and after stacked ramps and cuts on mixed
/// grids such a time can need a timescale beyond 32 bits in every order, although each of the
/// timeline's own times fits. The edits that made the timeline passed only through times that
/// fit, so replaying them is exact.
extension OTIO {
    /// The timeline metadata's `edits` member: the edits as JSON text (one string, so that
    /// no OTIO tool mistakes them for its own objects); nothing without edits.
    static func editsField(_ edits: [Edit]?) -> [(String, OrderedJSON)] {
        guard let edits, !edits.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(edits) else { return [] }
        return [("edits", .string(String(decoding: data, as: UTF8.self)))]
    }

    /// The edits of a timeline's `metadata.slowpoke`, nil when it has none or they do not decode.
    static func readEdits(_ slowpoke: [String: Any]?) -> [Edit]? {
        guard let text = slowpoke?["edits"] as? String else { return nil }
        return try? JSONDecoder().decode([Edit].self, from: Data(text.utf8))
    }

    /// The timeline's own edits replayed on `original`, when they give exactly the timeline
    /// every track describes; nil otherwise (another tool changed an item, or they do not apply
    /// to this movie), and the tracks are replayed instead.
    static func replayRecorded(_ timeline: OTIOTimeline, on original: Composition) -> (edits: [Edit], composition: Composition)? {
        guard let edits = timeline.edits, !edits.isEmpty else { return nil }
        var composition = original
        do {
            for edit in edits { try edit.apply(to: &composition) }
            try check(timeline, against: composition)
        } catch {
            return nil
        }
        return (edits, composition)
    }
}
