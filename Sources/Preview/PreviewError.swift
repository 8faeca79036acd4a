import Foundation

/// Why the preview could not start or go on.
public enum PreviewError: Error, Sendable, CustomStringConvertible {
    /// SDL refused something; `what` says what was being done, `reason` is SDL's message.
    case sdl(what: String, reason: String)
    /// The composition has nothing to show or play.
    case nothingToPlay(String)

    public var description: String {
        switch self {
        case let .sdl(what, reason):
            let hint = what.contains("window") || what.contains("video")
                ? " (is there a display? set DISPLAY, or use --no-video)" : ""
            return "could not \(what): \(reason)\(hint)"
        case let .nothingToPlay(message): return message
        }
    }
}

extension PreviewError: LocalizedError {
    public var errorDescription: String? { description }
}
