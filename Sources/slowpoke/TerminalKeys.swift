import Foundation
import SafeFiles
import Preview

/// Keys from standard input for `preview --no-video`. On a terminal, input is switched to raw
/// mode (no echo, no line buffering) and restored by `restore()` or on deinit (or by
/// `Interrupt`'s handler if a second signal ends the process at once); from a pipe, bytes are read as they
/// come. Arrow keys arrive as ESC [ A-D; a lone ESC quits.
final class TerminalKeys {
    private var saved: termios?
    private var pending: [UInt8] = []
    private var closed = false

    init() {
        if isatty(STDIN_FILENO) != 0 {
            var attributes = termios()
            if tcgetattr(STDIN_FILENO, &attributes) == 0 {
                saved = attributes
                var raw = attributes
                raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
                // Keep ISIG so Ctrl-C still interrupts (the command sees SIGINT, exit status 130).
                withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                    cc[Int(VMIN)] = 0
                    cc[Int(VTIME)] = 0
                }
                Signals.saveTerminal(attributes)
                tcsetattr(STDIN_FILENO, TCSANOW, &raw)
            }
        }
    }

    deinit { restore() }

    /// Puts the terminal back as it was (once; later calls do nothing).
    func restore() {
        guard var saved else { return }
        tcsetattr(STDIN_FILENO, TCSADRAIN, &saved)
        self.saved = nil
        Signals.saveTerminal(nil)
    }

    /// Drops the keys typed so far (while the preview was starting), unread.
    func discardPending() {
        if saved != nil { tcflush(STDIN_FILENO, TCIFLUSH) }
        pending = []
    }

    /// The next key, or nil if none is waiting.
    func next() -> PreviewKey? {
        fill()
        while let byte = pending.first {
            if byte == 0x1B {
                if pending.count >= 3 && pending[1] == UInt8(ascii: "[") {
                    let code = pending[2]
                    pending.removeFirst(3)
                    switch code {
                    case UInt8(ascii: "A"): return .pitchUp
                    case UInt8(ascii: "B"): return .pitchDown
                    case UInt8(ascii: "C"): return .faster
                    case UInt8(ascii: "D"): return .slower
                    default: continue
                    }
                }
                if pending.count >= 2 && pending[1] == UInt8(ascii: "[") { return nil }  // the rest is on its way
                pending.removeFirst()
                return .quit
            }
            pending.removeFirst()
            switch byte {
            case UInt8(ascii: " "): return .playPause
            case UInt8(ascii: "c"): return .chipmunk
            case UInt8(ascii: "a"): return .toggleStretch
            case UInt8(ascii: ","): return .stepBack
            case UInt8(ascii: "."): return .stepForward
            case UInt8(ascii: "j"): return .seekBack
            case UInt8(ascii: "J"): return .playBackwards
            case UInt8(ascii: "l"): return .seekForward
            case UInt8(ascii: "["): return .markStart
            case UInt8(ascii: "]"): return .markEnd
            case 0x0D, 0x0A: return .apply
            case UInt8(ascii: "u"): return .undo
            case UInt8(ascii: "h"): return .help
            case UInt8(ascii: "t"): return .nextAudioTrack
            case UInt8(ascii: "s"): return .subtitles
            case UInt8(ascii: "q"): return .quit
            // Spelled-out arrows, for scripts that cannot send escape sequences.
            case UInt8(ascii: "<"): return .slower
            case UInt8(ascii: ">"): return .faster
            default: continue
            }
        }
        return closed ? .quit : nil
    }

    private func fill() {
        guard !closed else { return }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 0) > 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(STDIN_FILENO, &buffer, buffer.count)
            if n <= 0 {
                // End of input (a pipe closed): quit once the keys read so far are handled.
                closed = true
                return
            }
            pending += buffer[0..<n]
        }
    }
}
