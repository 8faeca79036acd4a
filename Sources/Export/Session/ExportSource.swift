public import Foundation
public import Composition

/// What an export reads: the movie, how messages name it, what the prober found in it, and the
/// timeline to play. Export never reads documents: the CLI reads one (its store checks the movie
/// against the document's fingerprint) and batch builds its timelines in memory, and each hands
/// the result over as an `ExportSource`. Every exporter, `info`'s export plan and the preview
/// take one.
public struct ExportSource: Sendable {
    /// The movie (or audio file) the timeline plays.
    public let movie: URL
    /// How messages name the movie: as the document records it (relative to its folder).
    public let name: String
    /// What the prober found in the movie.
    public let media: MediaInfo
    /// The timeline to export.
    public let timeline: Composition
    /// Files the output must never be, beyond the movie itself (the document, a batch's recipe
    /// and its other movies), compared by device and inode.
    public var protectedInputs: [URL]

    public init(movie: URL, name: String, media: MediaInfo, timeline: Composition, protectedInputs: [URL] = []) {
        self.movie = movie
        self.name = name
        self.media = media
        self.timeline = timeline
        self.protectedInputs = protectedInputs
    }

    /// Every file the output must not be: the movie and the protected inputs.
    var inputs: [URL] { [movie] + protectedInputs }

    /// The movie's audio streams that can be decoded, in order: the first is the primary one
    /// (``MediaInfo/primaryAudio``, the document's audio). One whose header names no codec,
    /// sample rate or channel count is left out of exports, and said.
    var audioStreams: [Int] { media.streams.filter { $0.isDecodableAudio && media.isInProgram($0.index) }.map(\.index) }
}
