import Foundation
public import Composition

/// A timeline read from an OTIO file, reduced to what slowpoke can play: per track, clips
/// (a source range of the movie at a rate), holds (freeze frames) and gaps.
public struct OTIOTimeline: Sendable, Hashable {
    public enum Item: Sendable, Hashable {
        /// Plays `source` (media time) at `rate`: it lasts `source.duration / |rate|` on the
        /// track; a negative rate plays it backwards, from its end.
        case clip(source: TimeRange, rate: Rational)
        case gap(duration: Time)
        /// Holds the frame on screen at media time `frame` for `duration` (a `FreezeFrame` clip).
        case hold(frame: Time, duration: Time)
    }

    /// A clip's media reference.
    public enum Media: Sendable, Hashable {
        /// An `ExternalReference`'s `target_url`.
        case file(String)
        /// A `MissingReference`: media not linked, as the EDL and AAF adapters leave it.
        case missing
    }

    public struct LabeledItem: Sendable, Hashable {
        public let item: Item
        /// How messages name it: `clip "shot 3" (item 3 of Video track "V1")`.
        public let label: String
        /// The clip's media reference, nil for a gap.
        public let media: Media?
        /// The source reel an EDL names (`metadata.cmx_3600.reel`, as OTIO's CMX 3600 adapter
        /// keeps it), for a clip whose media is not linked.
        public var reel: String? = nil

        public init(item: Item, label: String, media: Media?, reel: String? = nil) {
            self.item = item
            self.label = label
            self.media = media
            self.reel = reel
        }

        /// The clip's `target_url`, nil for a gap or a missing reference.
        public var targetURL: String? {
            if case .file(let url) = media { url } else { nil }
        }
    }

    public struct Track: Sendable, Hashable {
        public let mediaType: MediaType
        public let name: String
        public let items: [LabeledItem]
        /// `Video track "V1"`.
        public var label: String { "\(mediaType == .video ? "Video" : "Audio") track \"\(name)\"" }
    }

    public let name: String
    public let tracks: [Track]
    /// The slowpoke edits that made the timeline, as slowpoke writes them beside it
    /// (`metadata.slowpoke.edits`); nil for other tools' files. Only a hint: an import replays
    /// them when they give exactly the timeline the tracks describe (see ``OTIO/replay(_:on:)``).
    public var edits: [Edit]? = nil

    /// Every clip, with its track.
    public var clips: [LabeledItem] {
        tracks.flatMap { $0.items.filter { $0.media != nil } }
    }

    /// Every clip's target URL, in order of first appearance.
    public var targetURLs: [String] {
        var seen: [String] = []
        for track in tracks {
            for item in track.items {
                if let url = item.targetURL, !seen.contains(url) { seen.append(url) }
            }
        }
        return seen
    }
}
