import Composition
import Foundation
import Project
import Batch
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
    /// Each job's number in the whole plan (a shard runs some of them).
    private let numbers: [Int]
    private let state: Mutex<State>

    /// `total` is the number of jobs in the whole plan, of which `jobs` may be a shard.
    init(style: ProgressStyle, jobs: [BatchJob], total: Int) {
        let terminal = isatty(STDERR_FILENO) == 1
        self.style = style == .auto ? (terminal ? .bar : .auto) : style
        let count = jobs.count
        names = jobs.map { "[\($0.number)/\(total)] \($0.name)" }
        numbers = jobs.map(\.number)
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
                emit(String(format: "{\"event\":\"progress\",\"job\":%d,\"movie\":%@,\"fraction\":%.4f}\n", numbers[index], quoted(names[index]), fraction))
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
        case .failed(let message): text = "failed: \(FlagAdvice.text(message))"
        case .notRun: text = "not run (interrupted)"
        }
        state.withLock { s in
            switch style {
            case .none: return
            case .json:
                let status = switch outcome { case .done: "done"; case .skipped: "skipped"; case .failed: "failed"; case .notRun: "not run" }
                emit("{\"event\":\"job\",\"job\":\(numbers[index]),\"movie\":\(quoted(names[index])),\"status\":\"\(status)\",\"detail\":\(quoted(text))}\n")
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

    /// What `--dry-run` prints: one row per job this run would do (its number in the whole
    /// plan, the movie, what would happen, the output), then a count.
    /// `force`: as the run would be. A missing movie, or an output that is a file the batch did
    /// not write (without `force`), would fail, and says so here too.
    static func dryRun(_ jobs: [BatchJob], total: Int, shard: BatchShard?, force: Bool) -> (text: String, failing: Int) {
        var rows = [["#", "movie", "would", "output"]]
        var counts = (run: 0, skip: 0, fail: 0)
        for job in jobs {
            let output = job.output.lastPathComponent
            let manager = FileManager.default
            let problem = job.problem
                ?? (manager.fileExists(atPath: job.movie.path) ? nil : "\(job.movie.path): no such file")
                ?? (!force && manager.fileExists(atPath: job.output.path) && job.recordedDigest() == nil
                    ? FlagAdvice.text(Notice(BatchError.notWrittenByBatch(output: output).description, remedies: [Remedy(.replace)])) : nil)
            if let problem {
                counts.fail += 1
                rows.append(["\(job.number)", job.name, "fail", problem])
            } else if job.isUpToDate() {
                counts.skip += 1
                rows.append(["\(job.number)", job.name, "skip", "\(job.output.path) (up to date)"])
            } else {
                counts.run += 1
                rows.append(["\(job.number)", job.name, "run", job.output.path])
            }
        }
        var out = columns(rows, padded: 3)
        let whose = shard.map { "shard \($0): \(jobs.count) of \(total) jobs" } ?? "\(total) job\(total == 1 ? "" : "s")"
        out += "\(whose): \(counts.run) to run, \(counts.skip) up to date, \(counts.fail) would fail\n"
        return (out, counts.fail)
    }

    /// The summary on stdout: one row per job.
    static func table(_ jobs: [BatchJob], _ outcomes: [BatchOutcome]) -> String {
        var rows = [["#", "movie", "status", "time", "output or error"]]
        var counts = (done: 0, skipped: 0, failed: 0, notRun: 0)
        // Each warning once, under the table, with the jobs it concerns.
        var warned: [(message: String, jobs: [Int])] = []
        for (job, outcome) in zip(jobs, outcomes) {
            let output = job.output.lastPathComponent
            switch outcome {
            case .done(let seconds, let detail, let warnings):
                counts.done += 1
                for message in warnings {
                    if let at = warned.firstIndex(where: { $0.message == message }) { warned[at].jobs.append(job.number) }
                    else { warned.append((message, [job.number])) }
                }
                rows.append(["\(job.number)", job.name, "done", String(format: "%.1f s", seconds), "\(output) (\(detail))"])
            case .skipped:
                counts.skipped += 1
                rows.append(["\(job.number)", job.name, "skipped", "", "\(output) (up to date)"])
            case .failed(let message):
                counts.failed += 1
                rows.append(["\(job.number)", job.name, "failed", "", FlagAdvice.text(message)])
            case .notRun:
                counts.notRun += 1
                rows.append(["\(job.number)", job.name, "not run", "", "interrupted"])
            }
        }
        var out = columns(rows, padded: 4)
        out += "\(jobs.count) job\(jobs.count == 1 ? "" : "s"): \(counts.done) done, \(counts.skipped) skipped, \(counts.failed) failed"
        out += counts.notRun > 0 ? ", \(counts.notRun) not run\n" : "\n"
        for (message, numbers) in warned {
            let whose = numbers.count == jobs.count && jobs.count > 1 ? "every job" : (numbers.count == 1 ? "job " : "jobs ") + numbers.map(String.init).joined(separator: ", ")
            out += Terminal.printable("warning (\(whose)): \(message)") + "\n"
        }
        return out
    }

    /// `rows` as text columns two spaces apart, the first `padded` columns padded to their
    /// widest cell (the last ones run free), one line each.
    static func columns(_ rows: [[String]], padded: Int) -> String {
        // Names come from recipes and folders: escape sequences in them are shown, not obeyed.
        let rows = rows.map { $0.map { Terminal.printable($0) } }
        let widths = (0..<padded).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column < padded ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
