import Composition
import Foundation
internal import CSDL2

/// The window's events: keys (``Player/key(for:shift:)``), and the mouse on the timeline strip,
/// as a seek bar and an editor's timeline work: a click or a drag seeks there (the picture
/// follows the drag), a drag with shift held marks the range it covers, and the wheel steps
/// frames (pausing first).
extension Player {
    /// What a mouse drag that started on the strip is doing.
    enum Drag {
        case seeking
        /// Marking from `markIn`; the mark's end follows the pointer.
        case marking
    }

    /// Takes the window's pending events: the keys pressed go to `pressed`; the mouse acts at
    /// once. Returns whether the window asked to quit and whether anything on screen changed.
    func pollWindowEvents(into pressed: inout [PreviewKey], message: (String) -> Void) throws -> (quit: Bool, changed: Bool) {
        var quit = false, changed = false
        var seekTo: Time?
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                quit = true
            case SDL_KEYDOWN.rawValue:
                let shift = Int32(event.key.keysym.mod) & Int32(KMOD_SHIFT.rawValue) != 0
                if let key = Self.key(for: event.key.keysym.sym, shift: shift) { pressed.append(key) }
            case SDL_WINDOWEVENT.rawValue:
                changed = true
            case SDL_MOUSEBUTTONDOWN.rawValue where Int32(event.button.button) == SDL_BUTTON_LEFT:
                guard let t = stripTime(x: event.button.x, y: event.button.y) else { break }
                let shift = SDL_GetModState().rawValue & KMOD_SHIFT.rawValue != 0
                drag = shift ? .marking : .seeking
                if shift {
                    settings.markIn = t
                    settings.markOut = nil
                }
                seekTo = t
                changed = true
            case SDL_MOUSEMOTION.rawValue where drag != nil:
                guard let t = stripTime(x: event.motion.x, y: nil) else { break }
                if drag == .marking { settings.markOut = t }
                seekTo = t
                changed = true
            case SDL_MOUSEBUTTONUP.rawValue where Int32(event.button.button) == SDL_BUTTON_LEFT && drag != nil:
                if let t = stripTime(x: event.button.x, y: nil) {
                    seekTo = t
                    if drag == .marking {
                        settings.markOut = t
                        if let range = settings.markedRange {
                            message("marked \(range.start.shown)-\(range.end.shown) s; pick a rate with ← and → and press Enter to scale it")
                        }
                    }
                }
                drag = nil
                changed = true
            case SDL_MOUSEWHEEL.rawValue:
                var steps = Int(event.wheel.y)
                if event.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue { steps = -steps }
                guard steps != 0 else { break }
                if settings.playing { try setPlaying(false) }
                var t = seekTo ?? currentTime
                for _ in 0..<abs(steps) { t = try frameStep(from: t, forward: steps > 0) }
                seekTo = t
                changed = true
            default:
                break
            }
        }
        // Of a burst of motion, only where the pointer came to: one seek a turn of the loop.
        if let seekTo { try seek(to: seekTo) }
        return (quit, changed)
    }

    /// The timeline time under window column `x`, when `y` is on the strip (or its row of
    /// times) or not asked; nil before the strip is drawn.
    private func stripTime(x: Int32, y: Int32?) -> Time? {
        guard let video, let strip = video.stripLayout?.strip, strip.duration == composition.duration else { return nil }
        if let y, Int(y) < video.outputSize.height - Int(VideoView.bottomPanel) { return nil }
        return strip.time(atX: Int(x))
    }
}
