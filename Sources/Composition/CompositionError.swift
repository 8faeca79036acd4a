import Foundation

/// Everything that can go wrong in the composition model and its document. Every message says
/// what is wrong in the user's terms and, where there is one, what to do instead.
public enum CompositionError: Error, Equatable, Sendable {
    /// Exact arithmetic would need more than 64-bit values or a 32-bit timescale.
    case overflow(String)
    case invalidRational(String)
    case invalidTime(String)
    case invalidRange(String)
    case notNumeric(String)
    /// A rate outside what slowpoke's audio and video pipelines support.
    case rateOutOfRange(String)
    /// Slow motion asked of a clip below 85 fps.
    case notHighFrameRate(String)
    /// A time or range that falls outside the timeline or the source.
    case beyondTimeline(String)
    case noSuchTrack(String)
    /// A track ID that the composition already uses.
    case duplicateTrack(String)
    /// The document on disk is no longer the one being worked on (another process edited it).
    case documentChanged(String)
    /// A file with neither a video nor an audio track.
    case noMediaTracks(String)
    /// The project document could not be read as a slowpoke document.
    case corruptDocument(path: String, reason: String)
    case newerDocument(path: String, version: Int, supported: Int)
    case movieMissing(document: String, movie: String)
    case movieChanged(document: String, movie: String, detail: String)
    case documentExists(String)
    case nothingToUndo
    case nothingToRedo
    case io(path: String, reason: String)
    case locked(String)

    /// The full sentence a user sees after `slowpoke: error: `.
    public var description: String {
        switch self {
        case .overflow(let what):
            "this would need a time finer than slowpoke's exact arithmetic holds (\(what)): the edits before it stack rates and ranges whose fractions multiply; use rounder values (ranges in whole milliseconds, rates like 0.25 or 1/3) or undo an earlier edit; nothing was changed"
        case .invalidRational(let what), .invalidTime(let what), .invalidRange(let what),
             .notNumeric(let what), .rateOutOfRange(let what), .notHighFrameRate(let what), .beyondTimeline(let what),
             .noSuchTrack(let what), .noMediaTracks(let what), .duplicateTrack(let what), .documentChanged(let what):
            what
        case .corruptDocument(let path, let reason):
            "\(path) is not a readable slowpoke document (\(reason)); it was left unchanged"
        case .newerDocument(let path, let version, let supported):
            "\(path) was written by a newer slowpoke (document version \(version); this slowpoke reads up to \(supported)); upgrade slowpoke to edit it"
        case .movieMissing(let document, let movie):
            "the movie \(movie) that \(document) refers to is missing; put it back, or run `slowpoke open` on the movie to start a new document"
        case .movieChanged(let document, let movie, let detail):
            "the movie \(movie) has changed since \(document) was made (\(detail)); its edits may no longer fit. Restore the original, or start over with `slowpoke open --force \(movie)`"
        case .documentExists(let path):
            "\(path) already exists"
        case .nothingToUndo:
            "nothing to undo"
        case .nothingToRedo:
            "nothing to redo"
        case .io(let path, let reason):
            "\(path): \(reason)"
        case .locked(let path):
            "\(path) is being changed by another slowpoke process; try again when it has finished"
        }
    }
}

extension CompositionError: LocalizedError {
    public var errorDescription: String? { description }
}

extension CompositionError: CustomStringConvertible {}
