import ArgumentParser
import Export
import Foundation
import SafeFiles

/// Draws progress for long work: percent done, speed as a multiple of real time, and ETA.
final class ProgressReporter {
    private let style: ProgressStyle
    private let label: String
    /// Seconds of media the whole job covers, for the speed figure (0 while unknown).
    var mediaSeconds: Double
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var lastPlainPercent = -10

    init(style: ProgressStyle, label: String, mediaSeconds: Double) {
        let terminal = isatty(STDERR_FILENO) == 1
        self.style = style == .auto ? (terminal ? .bar : .auto) : style
        self.label = label
        self.mediaSeconds = mediaSeconds
    }

    /// Reports `fraction` done; throws if the user interrupted.
    func update(_ fraction: Double) throws {
        try Interrupt.check()
        let now = Date()
        let elapsed = now.timeIntervalSince(start)
        let speed = elapsed > 0 ? fraction * mediaSeconds / elapsed : 0
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        switch style {
        case .none:
            return
        case .bar:
            guard now.timeIntervalSince(lastDraw) > 0.1 || fraction >= 1 else { return }
            lastDraw = now
            let width = 30, filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let line = String(format: "\r%@ [%@] %3d%%  %.1fx  ETA %@ ", label, bar, Int(fraction * 100), speed, clock(eta))
            FileHandle.standardError.write(Data(line.utf8))
            if fraction >= 1 { FileHandle.standardError.write(Data("\n".utf8)) }
        case .json:
            guard now.timeIntervalSince(lastDraw) > 0.1 || fraction >= 1 else { return }
            lastDraw = now
            let line = String(format: "{\"event\":\"progress\",\"task\":\"%@\",\"fraction\":%.4f,\"elapsed\":%.3f,\"speed\":%.3f,\"eta\":%.3f}\n",
                              label, fraction, elapsed, speed, eta)
            FileHandle.standardError.write(Data(line.utf8))
        case .auto:
            // Not a terminal: a plain line every 10%.
            let percent = Int(fraction * 100)
            guard percent >= lastPlainPercent + 10 else { return }
            lastPlainPercent = percent - percent % 10
            FileHandle.standardError.write(Data("slowpoke: \(label) \(percent)% (\(String(format: "%.1f", speed))x real time)\n".utf8))
        }
    }

    /// Says a warning on stderr: a line, or with `--progress json` a JSON event like progress,
    /// so that a script reading stderr line by line sees only JSON.
    func warning(_ message: String) {
        guard style == .json else { return Terminal.note("warning: \(message)") }
        let escaped = (try? JSONSerialization.data(withJSONObject: ["event": "warning", "task": label, "message": message], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{\"event\":\"warning\"}"
        FileHandle.standardError.write(Data((escaped + "\n").utf8))
    }

    /// The last line of a finished job under `--progress json`: what was written and how long
    /// it plays (`{"event":"done","output":"clip-slowpoke.mp4","duration":15.4}`).
    func done(output: String, duration: Double) {
        guard style == .json else { return }
        let fields: [String: Any] = ["event": "done", "task": label, "output": output, "duration": duration]
        let line = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{\"event\":\"done\"}"
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
