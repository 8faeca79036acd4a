import Foundation

/// Why the preview could not start or go on.
public enum PreviewError: Error, Sendable, CustomStringConvertible {
    /// SDL refused something; `what` says what was being done, `reason` is SDL's message.
    case sdl(what: String, reason: String)
    /// The composition has nothing to show or play.
    case nothingToPlay(String)
    /// No display: SDL could only open a video driver that shows nothing; `display` is the
    /// one DISPLAY (or WAYLAND_DISPLAY) names, which refused the connection, if any.
    case noDisplay(driver: String, display: String?)

    /// Whether SDL failed at opening a window or its video (a display may be missing).
    public var needsDisplay: Bool {
        if case .sdl(let what, _) = self { return what.contains("window") || what.contains("video") }
        if case .noDisplay = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .sdl(what, reason):
            return "could not \(what): \(reason)"
        case let .nothingToPlay(message): return message
        case let .noDisplay(driver, display?) where !display.isEmpty:
            return "could not connect to the display \(display) (tried for a second; SDL could only start its \(driver) video driver, which shows nothing); run it where that display's server is up and lets this user in"
        case let .noDisplay(driver, _):
            return "there is no display to show the preview on (SDL could only start its \(driver) video driver, which shows nothing); run it where DISPLAY or WAYLAND_DISPLAY is set"
        }
    }
}

extension PreviewError: LocalizedError {
    public var errorDescription: String? { description }
}
