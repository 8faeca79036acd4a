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
/// document whose stored timeline disagrees with its history is refused as corrupt. Since
/// version 4 a document carries a checksum, and one that matches it is read without replaying
/// its history (see ``StoredTimeline``).
public struct ProjectDocument: Sendable, Hashable {
    /// The newest document format this slowpoke reads and writes. Version 2 added the `ramp`
    /// edit, version 3 the `freeze` and `slomo` edits (and hold segments), version 4 the
    /// `checksum` that lets a document be read without replaying its history. Versions 1 to 3
    /// were written with the oldest version that could hold the history; every document this
    /// slowpoke writes is version 4 or later, and an older slowpoke refuses it by its version
    /// ("written by a newer slowpoke") rather than as corrupt. It reads and exports versions 1 to
    /// 3 as before (replaying their history), and writes them back as version 4. Version 5 added
    /// the `reverse` edit (and reversed segments); only a document that holds one is written as 5.
    /// Version 6 added the `group` edit (several ranges edited at once); only a document whose
    /// history holds one is written as 6.
    public static let currentVersion = 6
    public static let formatName = "slowpoke"

    public let movie: MovieReference
    public let media: MediaInfo
    public private(set) var timeline: Composition
    public private(set) var history: EditHistory

    /// A new document for the movie at `movieURL`, to be saved at `documentURL`, with the whole
    /// movie on its timeline.
    public init(movieURL: URL, documentURL: URL, media: MediaInfo) throws(ProjectError) {
        let relative = DocumentStore.relativePath(of: movieURL, from: documentURL.deletingLastPathComponent())
        self.movie = MovieReference(path: relative, fingerprint: try Fingerprint(of: movieURL))
        self.media = media
        self.history = EditHistory()
        self.timeline = try ProjectError.editing { () throws(CompositionError) in try Composition(asset: media.asset(name: relative)) }
    }

    /// The whole movie at its natural rate: the timeline before any edit.
    public func originalTimeline() throws(ProjectError) -> Composition {
        try ProjectError.editing { () throws(CompositionError) in try Composition(asset: media.asset(name: movie.path)) }
    }

    /// The movie's facts and the timeline when the document plays program `id` of its
    /// transport stream instead (`export --program`): the applied edits replayed on that
    /// program's streams. Nil when the movie has no such program.
    public func playing(program id: Int) throws(ProjectError) -> (media: MediaInfo, timeline: Composition)? {
        guard let chosen = media.playing(program: id) else { return nil }
        if chosen == media { return (media, timeline) }
        let start = try ProjectError.editing { () throws(CompositionError) in try Composition(asset: chosen.asset(name: movie.path)) }
        return (chosen, try Self.replay(try history.appliedEdits, on: start))
    }

    /// Applies `edit` to the timeline and records it. Edits undone before it are dropped.
    public mutating func apply(_ edit: Edit, date: Date = Date()) throws(ProjectError) {
        // In place: the edit is all or nothing, and a copy would copy every segment.
        try ProjectError.editing { () throws(CompositionError) in try edit.apply(to: &self.timeline) }
        history.record(edit, date: date)
    }

    /// Undoes the last applied edit and returns it. An edit with an exact inverse (a scale, a
    /// ramp, a gap, a freeze) is undone by it, in time proportional to what it changes; the
    /// others (a cut, slow motion) by replaying the history before it.
    @discardableResult
    public mutating func undo() throws(ProjectError) -> Edit {
        var history = self.history
        let edit = try history.stepBack()
        if let before = edit.undone(on: timeline) {
            timeline = before
        } else {
            timeline = try Self.replay(try history.appliedEdits, on: originalTimeline())
        }
        self.history = history
        return edit
    }

    /// Re-applies the last undone edit and returns it.
    @discardableResult
    public mutating func redo() throws(ProjectError) -> Edit {
        var history = self.history
        let edit = try history.stepForward()
        try ProjectError.editing { () throws(CompositionError) in try edit.apply(to: &self.timeline) }
        self.history = history
        return edit
    }

    static func replay(_ edits: [Edit], on start: Composition) throws(ProjectError) -> Composition {
        var composition = start
        try ProjectError.editing { () throws(CompositionError) in
            for edit in edits { try edit.apply(to: &composition) }
        }
        return composition
    }
}

extension ProjectDocument {
    /// The format version the document is written with: 6 when its history holds a group of
    /// edits, 5 when its history or timeline holds a reverse, else 4, since every document carries its checksum. (``DocumentStore`` checks
    /// the version it reads.)
    public var version: Int {
        if history.mayHold(recordedAs: ["group"]) { return 6 }
        let reverses = timeline.tracks.contains { $0.segments.contains(where: \.isReversed) }
            || history.mayHold(recordedAs: ["reverse"])
        return reverses ? 5 : 4
    }

    /// The oldest version that holds the history (applied or undone edits) without a checksum:
    /// 3 with a freeze or slow motion, 2 with a ramp, else 1.
    public var historyVersion: Int {
        get throws(ProjectError) {
            try history.entries.map { entry in
                switch entry.edit {
                case .group: 6
                case .reverse: 5
                case .freeze, .slowMotion: 3
                case .ramp: 2
                case .scale, .remove, .insertGap: 1
                }
            }.max() ?? 1
        }
    }

    /// The document read with `history` in place of the one it was decoded with (for
    /// ``DocumentStore``, which reads a history's entries as text).
    mutating func replaceHistory(with history: EditHistory) {
        self.history = history
    }
}

extension ProjectDocument: Codable {
    private enum CodingKeys: String, CodingKey { case checksum, format, version, movie, media, timeline, history }

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
        // Zeros here; DocumentStore.encode replaces them with the checksum of the bytes.
        try c.encode(StoredTimeline.placeholder, forKey: .checksum)
        try c.encode(Self.formatName, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(movie, forKey: .movie)
        try c.encode(media, forKey: .media)
        if encoder.userInfo[TimelineText.placeholderKey] != nil {
            // DocumentStore.encode writes the timeline in its place (see TimelineText).
            try c.encode(TimelineText.placeholder, forKey: .timeline)
        } else {
            try c.encode(timeline, forKey: .timeline)
        }
        if encoder.userInfo[HistoryText.placeholderKey] != nil {
            // DocumentStore.encode writes the history in its place (see HistoryText).
            try c.encode(HistoryText.placeholder, forKey: .history)
        } else {
            try c.encode(history, forKey: .history)
        }
    }
}
