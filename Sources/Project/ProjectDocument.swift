public import Foundation
import SafeFiles
public import Composition
import Crypto

/// The movie a document edits: a path relative to the document's folder, and its fingerprint.
public struct MovieReference: Sendable, Hashable, Codable {
    public let path: String
    public let fingerprint: Fingerprint
}

/// A slowpoke project, `<movie-stem>.slowpoke`: the movie it edits, that movie's facts, the
/// timeline, and the edit history for undo and redo.
///
/// The timeline is always the result of replaying the applied edits on the whole movie; a
/// document whose stored timeline disagrees with its history is refused as corrupt.
public struct ProjectDocument: Sendable, Hashable {
    /// The newest document format this slowpoke reads and writes. Version 2 added the `ramp`
    /// edit, version 3 the `freeze` and `slomo` edits (and hold segments); a document is written
    /// with the oldest version that can hold its history (1 unless it records one of those), so a slowpoke that knows only version 1 still reads what it can, and
    /// refuses the rest by version ("written by a newer slowpoke") rather than as corrupt.
    public static let currentVersion = 3
    public static let formatName = "slowpoke"

    public let movie: MovieReference
    public let media: MediaInfo
    public private(set) var timeline: Composition
    public private(set) var history: EditHistory

    /// A new document for the movie at `movieURL`, to be saved at `documentURL`, with the whole
    /// movie on its timeline.
    public init(movieURL: URL, documentURL: URL, media: MediaInfo) throws(CompositionError) {
        let relative = DocumentStore.relativePath(of: movieURL, from: documentURL.deletingLastPathComponent())
        self.movie = MovieReference(path: relative, fingerprint: try Fingerprint(of: movieURL))
        self.media = media
        self.history = EditHistory()
        self.timeline = try Composition(asset: media.asset(name: relative))
    }

    /// The whole movie at its natural rate: the timeline before any edit.
    public func originalTimeline() throws(CompositionError) -> Composition {
        try Composition(asset: media.asset(name: movie.path))
    }

    /// Applies `edit` to the timeline and records it. Edits undone before it are dropped.
    public mutating func apply(_ edit: Edit, date: Date = Date()) throws(CompositionError) {
        try edit.apply(to: &timeline)
        history.record(edit, date: date)
    }

    /// Undoes the last applied edit and returns it.
    @discardableResult
    public mutating func undo() throws(CompositionError) -> Edit {
        var history = self.history
        let edit = try history.stepBack()
        timeline = try Self.replay(history.appliedEdits, on: originalTimeline())
        self.history = history
        return edit
    }

    /// Re-applies the last undone edit and returns it.
    @discardableResult
    public mutating func redo() throws(CompositionError) -> Edit {
        var history = self.history
        let edit = try history.stepForward()
        try edit.apply(to: &timeline)
        self.history = history
        return edit
    }

    static func replay(_ edits: [Edit], on start: Composition) throws(CompositionError) -> Composition {
        var composition = start
        for edit in edits { try edit.apply(to: &composition) }
        return composition
    }
}

extension ProjectDocument {
    /// The format version the document is written with: the oldest that holds its history
    /// (applied or undone edits): 3 with a freeze or slow motion, 2 with a ramp, else 1.
    /// (``DocumentStore`` checks the version it reads.)
    public var version: Int {
        history.entries.map { entry in
            switch entry.edit {
            case .freeze, .slowMotion: 3
            case .ramp: 2
            case .scale, .remove, .insertGap: 1
            }
        }.max() ?? 1
    }
}

extension ProjectDocument: Codable {
    private enum CodingKeys: String, CodingKey { case format, version, movie, media, timeline, history }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        movie = try c.decode(MovieReference.self, forKey: .movie)
        media = try c.decode(MediaInfo.self, forKey: .media)
        if case let (field, problem)? = media.outOfRangeField() {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "media.\(field) \(problem)"))
        }
        timeline = try c.decode(Composition.self, forKey: .timeline)
        history = try c.decode(EditHistory.self, forKey: .history)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.formatName, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(movie, forKey: .movie)
        try c.encode(media, forKey: .media)
        try c.encode(timeline, forKey: .timeline)
        try c.encode(history, forKey: .history)
    }
}
