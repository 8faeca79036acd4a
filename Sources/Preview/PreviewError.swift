import Foundation

/// Why the preview could not start or go on.
public enum PreviewError: Error, Sendable, CustomStringConvertible {
    /// SDL refused something; `what` says what was being done, `reason` is SDL's message.
    case sdl(what: String, reason: String)
    /// The composition has nothing to show or play.
    case nothingToPlay(String)
    /// No display: SDL could only open a video driver that shows nothing.
    case noDisplay(driver: String)

    public var description: String {
        switch self {
        case let .sdl(what, reason):
            let hint = what.contains("window") || what.contains("video")
                ? " (is there a display? set DISPLAY, or use --no-video)" : ""
            return "could not \(what): \(reason)\(hint)"
        case let .nothingToPlay(message): return message
        case let .noDisplay(driver):
            return "there is no display to show the preview on (SDL could only start its \(driver) video driver, which shows nothing); run it where DISPLAY or WAYLAND_DISPLAY is set, or with --no-video to hear it with keys from the terminal"
        }
    }
}

extension PreviewError: LocalizedError {
    public var errorDescription: String? { description }
}
