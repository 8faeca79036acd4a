import Foundation
import Project
import Synchronization

/// One line of progress per job on stderr, and the summary table.
final class BatchDisplay: Sendable {
    private struct State {
        var lines: [String]
        var drawn = 0
        var lastDraw = Date.distantPast
        var lastPercent: [Int]
    }

    private let style: ProgressStyle
    private let names: [String]
    private let state: Mutex<State>

    init(style: ProgressStyle, jobs: [BatchJob]) {
        let terminal = isatty(STDERR_FILENO) == 1
        self.style = style == .auto ? (terminal ? .bar : .auto) : style
        let count = jobs.count
        names = jobs.map { "[\($0.number)/\(count)] \($0.name)" }
        state = Mutex(State(lines: names.map { "\($0): waiting" }, lastPercent: Array(repeating: -1, count: count)))
    }

    func update(_ index: Int, fraction: Double) {
        let percent = Int(fraction * 100)
        state.withLock { s in
            switch style {
            case .none:
                return
            case .json:
                guard percent != s.lastPercent[index] else { return }
                s.lastPercent[index] = percent
                emit(String(format: "{\"event\":\"progress\",\"job\":%d,\"movie\":%@,\"fraction\":%.4f}\n", index + 1, quoted(names[index]), fraction))
            case .auto:
                // Plain lines: when a job starts and at every quarter.
                guard percent / 25 > s.lastPercent[index] / 25 || s.lastPercent[index] < 0 else { return }
                s.lastPercent[index] = percent
                emit("slowpoke: \(names[index]): \(percent)%\n")
            case .bar:
                let width = 20, filled = min(width, Int(fraction * Double(width)))
                s.lines[index] = "\(names[index]) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(percent)%"
                redraw(&s, force: false)
            }
        }
    }

    func update(_ index: Int, outcome: BatchOutcome) {
        let text: String
        switch outcome {
        case .done(let seconds, let detail, let warnings):
            text = String(format: "done in %.1f s (%@)", seconds, detail) + warnings.map { "; warning: \($0)" }.joined()
        case .skipped: text = "up to date, skipped"
        case .failed(let message): text = "failed: \(message)"
        case .notRun: text = "not run (interrupted)"
        }
        state.withLock { s in
            switch style {
            case .none: return
            case .json:
                let status = switch outcome { case .done: "done"; case .skipped: "skipped"; case .failed: "failed"; case .notRun: "not run" }
                emit("{\"event\":\"job\",\"job\":\(index + 1),\"movie\":\(quoted(names[index])),\"status\":\"\(status)\",\"detail\":\(quoted(text))}\n")
            case .auto:
                emit("slowpoke: \(names[index]): \(text)\n")
            case .bar:
                s.lines[index] = "\(names[index]): \(text)"
                redraw(&s, force: true)
            }
        }
    }

    func finish() {
        state.withLock { s in if style == .bar { redraw(&s, force: true) } }
    }

    /// Rewrites the block of job lines in place on a terminal.
    private func redraw(_ s: inout State, force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(s.lastDraw) > 0.1 else { return }
        s.lastDraw = now
        // Lines are cut to the terminal's width: a wrapped line would throw the cursor-up count off.
        var size = winsize()
        let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 10 ? Int(size.ws_col) : 80
        var text = s.drawn > 0 ? "\u{1B}[\(s.drawn)A" : ""
        for line in s.lines { text += "\r\u{1B}[2K" + String(line.prefix(columns - 1)) + "\n" }
        s.drawn = s.lines.count
        emit(text)
    }

    private func emit(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    private func quoted(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// The summary on stdout: one row per job.
    static func table(_ jobs: [BatchJob], _ outcomes: [BatchOutcome]) -> String {
        var rows = [["#", "movie", "status", "time", "output or error"]]
        var counts = (done: 0, skipped: 0, failed: 0, notRun: 0)
        for (job, outcome) in zip(jobs, outcomes) {
            let output = job.output.lastPathComponent
            switch outcome {
            case .done(let seconds, let detail, let warnings):
                counts.done += 1
                let noted = warnings.map { "; warning: \($0)" }.joined()
                rows.append(["\(job.number)", job.name, "done", String(format: "%.1f s", seconds), "\(output) (\(detail))\(noted)"])
            case .skipped:
                counts.skipped += 1
                rows.append(["\(job.number)", job.name, "skipped", "", "\(output) (up to date)"])
            case .failed(let message):
                counts.failed += 1
                rows.append(["\(job.number)", job.name, "failed", "", message])
            case .notRun:
                counts.notRun += 1
                rows.append(["\(job.number)", job.name, "not run", "", "interrupted"])
            }
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = rows.map { row in
            row.enumerated().map { column, cell in
                column < 4 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
        out += "\(jobs.count) job\(jobs.count == 1 ? "" : "s"): \(counts.done) done, \(counts.skipped) skipped, \(counts.failed) failed"
        out += counts.notRun > 0 ? ", \(counts.notRun) not run\n" : "\n"
        return out
    }
}
