import Foundation

/// Everything that can go wrong in the composition model (the document's own failures are
/// Project's `ProjectError`). Every message says what is wrong in the user's terms; what to do
/// about it in a front end's options is the front end's to say.
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
    /// Slow motion asked of a clip stored for slow playback, which already plays slower than it
    /// was filmed throughout (until it is made to play at the speed it was filmed).
    case storedSlow(String)
    /// A slow-motion region given in movie time (by a sidecar) that edits have since changed
    /// on the timeline, so it has no one place there.
    case regionEdited(String)
    /// A time or range that falls outside the timeline or the source.
    case beyondTimeline(String)
    case noSuchTrack(String)
    /// A track ID that the composition already uses.
    case duplicateTrack(String)
    /// A file with neither a video nor an audio track.
    case noMediaTracks(String)

    /// The full sentence a user sees after `slowpoke: error: `.
    public var description: String {
        switch self {
        case .overflow(let what):
            "this would need a time finer than slowpoke's exact arithmetic holds (\(what)): the edits before it stack rates and ranges whose fractions multiply; use rounder values (ranges in whole milliseconds, rates like 0.25 or 1/3) or undo an earlier edit; nothing was changed"
        case .invalidRational(let what), .invalidTime(let what), .invalidRange(let what),
             .notNumeric(let what), .rateOutOfRange(let what), .notHighFrameRate(let what), .storedSlow(let what),
             .regionEdited(let what), .beyondTimeline(let what),
             .noSuchTrack(let what), .noMediaTracks(let what), .duplicateTrack(let what):
            what
        }
    }
}

extension CompositionError: LocalizedError {
    public var errorDescription: String? { description }
}

extension CompositionError: CustomStringConvertible {}
