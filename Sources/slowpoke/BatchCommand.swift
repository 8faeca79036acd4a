import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Synchronization
import TimePitch

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Retime many movies from a recipe, several at a time.",
        discussion: """
            The recipe (JSON; see the README's "Batch" section) lists movies, the edits for each \
            (ranges in seconds, timecodes or percentages of the timeline: 25%-50%) and export \
            settings. Paths are relative to the recipe's folder (to the current folder for `-`, \
            which reads the recipe from stdin).

            Jobs run in parallel, --jobs at a time. Each shows one line of progress; a table \
            sums them up at the end. A job that fails (a corrupt movie, an edit that does not \
            fit) never stops the others, and the exit status is 1 if any failed. An output that \
            is complete, newer than its movie and made from the same recipe entry is skipped, so \
            rerunning a batch redoes only what changed.

            Examples:
              slowpoke batch recipe.json
              slowpoke batch recipe.json --jobs 1 --progress json
              cat recipe.json | slowpoke batch -
            """)

    @Argument(help: ArgumentHelp("The recipe, or - to read it from stdin.", valueName: "recipe.json|-"),
              completion: .file(extensions: ["json"]))
    var recipe: String

    @Option(help: ArgumentHelp("How many movies to work on at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Progress on stderr: auto (live lines on a terminal, plain lines otherwise), bar, json or none.", valueName: "style"))
    var progress: ProgressStyle = .auto

    @Flag(help: "Replace outputs that exist but were not written by a batch (outputs from an earlier run of the same recipe are handled without it).")
    var force = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        Interrupt.install()
        let (data, base, shown) = try readRecipe()
        let parsed = try BatchRecipe.parse(data, path: shown)
        let planned = BatchPlan.jobs(for: parsed, base: base)
        guard !planned.isEmpty else { throw CLIError("\(shown) lists no movies") }
        if let folder = parsed.outputDirectory.map({ BatchPlan.resolve($0, base: base) }) {
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw ExportError.cannotWrite(path: folder.path, reason: "cannot create the output folder: \(error.localizedDescription)")
            }
        }
        let workers = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, planned.count)
        let display = BatchDisplay(style: progress, jobs: planned)
        let outcomes = BatchRunner.run(planned, workers: workers, force: force, display: display)
        display.finish()
        print(BatchDisplay.table(planned, outcomes), terminator: "")
        if Interrupt.received != 0 { throw ExportError.interrupted }
        let failed = outcomes.filter { if case .failed = $0 { true } else { false } }.count
        if failed > 0 { throw CLIError("\(failed) of \(planned.count) job\(planned.count == 1 ? "" : "s") failed") }
    }

    private func readRecipe() throws -> (Data, URL, String) {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if recipe == "-" {
            return (FileHandle.standardInput.readDataToEndOfFile(), here, "the recipe on stdin")
        }
        let url = URL(fileURLWithPath: recipe)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ExportError.cannotOpen(path: recipe, reason: "no such file or not readable")
        }
        return (data, url.deletingLastPathComponent(), recipe)
    }
}

/// One movie's work, planned before anything runs.
struct BatchJob: Sendable {
    let number: Int
    /// The movie as the recipe names it (after glob expansion).
    let name: String
    let movie: URL
    let edits: [BatchRecipe.EditSpec]
    let export: BatchRecipe.ExportSpec
    let output: URL
    /// Why the job cannot run at all (a pattern that matched nothing, a clashing output).
    let problem: String?

    /// Records that `output` was made from this very job, beside it: `.<output>.slowpoke-batch`.
    var marker: URL {
        output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).slowpoke-batch")
    }

    /// A digest of everything the output depends on: the movie (path, size, modification
    /// time), the edits, the export settings and the output name. A changed recipe entry or a
    /// replaced movie gives another digest, and the job is done again.
    func digest() -> String? {
        struct Key: Encodable {
            let version = 1
            let movie: String
            let size: Int64
            let modified: Double
            let edits: [BatchRecipe.EditSpec]
            let export: BatchRecipe.ExportSpec
            let output: String
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: movie.path) else { return nil }
        let key = Key(movie: movie.standardizedFileURL.path, size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                      modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                      edits: edits, export: export, output: output.lastPathComponent)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(key) else { return nil }
        return BatchRecipe.digest(data)
    }
}

enum BatchOutcome: Sendable {
    case done(seconds: Double, detail: String)
    case skipped
    case failed(String)
    case notRun
}

enum BatchPlan {
    /// One job per movie (per matching file for a pattern), in recipe order.
    static func jobs(for recipe: BatchRecipe, base: URL) -> [BatchJob] {
        let outputFolder = recipe.outputDirectory.map { resolve($0, base: base) } ?? base
        var jobs: [BatchJob] = []
        var outputs: [String: Int] = [:]
        for spec in recipe.movies {
            let export = recipe.export.overridden(by: spec.export)
            let edits = spec.edits ?? recipe.edits
            var matches: [(String, URL)] = []
            if spec.path.contains("*") || spec.path.contains("?") {
                matches = expand(spec.path, base: base)
                if matches.isEmpty {
                    jobs.append(BatchJob(number: jobs.count + 1, name: spec.path, movie: resolve(spec.path, base: base), edits: edits,
                                         export: export, output: outputFolder, problem: "\(spec.path) matches no file"))
                    continue
                }
            } else {
                matches = [(spec.path, resolve(spec.path, base: base))]
            }
            for (name, movie) in matches {
                let ext = export.container?.lowercased() ?? (["mp4", "mov", "mkv"].contains(movie.pathExtension.lowercased()) ? movie.pathExtension.lowercased() : "mp4")
                let fileName = (matches.count == 1 ? spec.output : nil) ?? "\(movie.deletingPathExtension().lastPathComponent)-slowpoke.\(ext)"
                let output = outputFolder.appendingPathComponent(fileName).standardizedFileURL
                var problem: String?
                if let earlier = outputs[output.path] {
                    problem = "its output \(fileName) is also the output of job \(earlier); give one of them an \"output\" name"
                } else {
                    outputs[output.path] = jobs.count + 1
                }
                jobs.append(BatchJob(number: jobs.count + 1, name: name, movie: movie, edits: edits, export: export,
                                     output: output, problem: problem))
            }
        }
        return jobs
    }

    static func resolve(_ path: String, base: URL) -> URL {
        let expanded = NSString(string: path).expandingTildeInPath
        return (expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : base.appendingPathComponent(expanded)).standardizedFileURL
    }

    /// The files a pattern (`clips/*.mp4`) matches, sorted, with their names as written.
    static func expand(_ pattern: String, base: URL) -> [(String, URL)] {
        let absolute = resolve(pattern, base: base).path
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(absolute, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            if let p = result.gl_pathv[index] { paths.append(String(cString: p)) }
        }
        let prefix = base.standardizedFileURL.path + "/"
        return paths.sorted().map { path in
            (path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path, URL(fileURLWithPath: path))
        }
    }
}

enum BatchRunner {
    /// Runs the jobs on `workers` threads and returns each job's outcome.
    ///
    /// Each export is long, blocking libav and Rubber Band work. Running it on Swift's
    /// cooperative pool (as many threads as cores) would cap `--jobs` at the core count and
    /// starve other tasks, so each worker is a thread of its own that takes the next job.
    static func run(_ jobs: [BatchJob], workers: Int, force: Bool, display: BatchDisplay) -> [BatchOutcome] {
        let state = Shared(count: jobs.count)
        let finished = DispatchGroup()
        for _ in 0..<workers {
            finished.enter()
            let thread = Thread {
                while let index = state.take() {
                    let outcome: BatchOutcome
                    if Interrupt.received != 0 {
                        outcome = .notRun
                    } else {
                        outcome = perform(jobs[index], force: force, display: display)
                    }
                    state.record(outcome, at: index)
                    display.update(index, outcome: outcome)
                }
                finished.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        finished.wait()
        return state.outcomes()
    }

    final class Shared: Sendable {
        private let next = Mutex(0)
        private let results: Mutex<[BatchOutcome]>
        private let count: Int

        init(count: Int) {
            self.count = count
            results = Mutex(Array(repeating: .notRun, count: count))
        }

        func take() -> Int? {
            next.withLock { n in
                guard n < count else { return nil }
                n += 1
                return n - 1
            }
        }

        func record(_ outcome: BatchOutcome, at index: Int) { results.withLock { $0[index] = outcome } }
        func outcomes() -> [BatchOutcome] { results.withLock { $0 } }
    }

    /// Does one job; every error becomes that job's failure.
    static func perform(_ job: BatchJob, force: Bool, display: BatchDisplay) -> BatchOutcome {
        let start = Date()
        do {
            if let problem = job.problem { throw CLIError(problem) }
            guard FileManager.default.fileExists(atPath: job.movie.path) else {
                throw ExportError.cannotOpen(path: job.name, reason: "no such file")
            }
            let digest = job.digest()
            let fm = FileManager.default
            let outputExists = fm.fileExists(atPath: job.output.path)
            let written = (try? String(contentsOf: job.marker, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if outputExists, let digest, written == digest, isNewer(job.output, than: job.movie) {
                return .skipped
            }
            // An output this batch wrote from another recipe entry (or an older movie) is
            // redone; anything else is the user's file and is kept unless --force.
            if outputExists && written == nil && !force {
                throw CLIError("\(job.output.lastPathComponent) exists and was not written by slowpoke batch; remove it or use --force")
            }
            display.update(job.number - 1, fraction: 0)
            let media = try Prober.probe(job.movie)
            let scratch = fm.temporaryDirectory.appendingPathComponent("slowpoke-batch-\(UUID().uuidString)")
            try fm.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? fm.removeItem(at: scratch) }
            let documentURL = scratch.appendingPathComponent(job.movie.deletingPathExtension().lastPathComponent + ".slowpoke")
            var document = try ProjectDocument(movieURL: job.movie, documentURL: documentURL, media: media)
            for (index, spec) in job.edits.enumerated() {
                do {
                    try document.apply(spec.resolved(timelineEnd: document.timeline.duration))
                } catch {
                    throw CLIError("edit \(index + 1): \(error.description)")
                }
            }
            try DocumentStore.create(document, at: documentURL)
            let detail = try exportMovie(documentURL: documentURL, output: job.output, spec: job.export, replace: outputExists,
                                         progress: { fraction in
                                             try Interrupt.check()
                                             display.update(job.number - 1, fraction: fraction)
                                         })
            if let digest {
                try? Data((digest + "\n").utf8).write(to: job.marker, options: .atomic)
            }
            return .done(seconds: Date().timeIntervalSince(start), detail: detail)
        } catch {
            return .failed(message(for: error))
        }
    }

    /// The one function through which batch exports a movie. Constant-frame-rate export
    /// (`"fps"` in the recipe) hooks in here when it lands.
    static func exportMovie(documentURL: URL, output: URL, spec: BatchRecipe.ExportSpec, replace: Bool,
                            progress: @escaping (Double) throws -> Void) throws -> String {
        let name = spec.algorithm ?? TimePitchAlgorithm.spectral.rawValue
        guard let algorithm = TimePitchAlgorithm(rawValue: name) else {
            throw CLIError("\"algorithm\": \"\(name)\" is not one of \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let settings = try TimePitchSettings(algorithm: algorithm, semitones: spec.semitones ?? 0)
        if let fps = spec.fps {
            // "29.97" in a recipe means the NTSC rate, as it does for `export --fps`.
            let rate = try FrameRateParser.parse(fps.exactDecimal() ?? fps.description)
            let exporter = try ConstantRateExporter(documentURL: documentURL, output: output,
                                                    options: .init(fps: rate), settings: settings, force: replace)
            let result = try exporter.run(progress: progress, warning: { _ in })
            return "\(result.frames) frames at \(rate.readable) fps, \(result.duration)"
        }
        let exporter = try PassthroughExporter(documentURL: documentURL, output: output, settings: settings, force: replace)
        let result = try exporter.run(progress: progress, warning: { _ in })
        return "\(result.videoFrames) frames, \(result.duration)"
    }

    static func isNewer(_ a: URL, than b: URL) -> Bool {
        let fm = FileManager.default
        guard let ta = (try? fm.attributesOfItem(atPath: a.path))?[.modificationDate] as? Date,
              let tb = (try? fm.attributesOfItem(atPath: b.path))?[.modificationDate] as? Date else { return false }
        return ta >= tb
    }

    static func message(for error: any Error) -> String {
        switch error {
        case let e as CompositionError: e.description
        case let e as ExportError: e.description
        case let e as TimePitchError: e.description
        case let e as CLIError: e.description
        default: "\(error)"
        }
    }
}

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
        case .done(let seconds, let detail): text = String(format: "done in %.1f s (%@)", seconds, detail)
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
            case .done(let seconds, let detail):
                counts.done += 1
                rows.append(["\(job.number)", job.name, "done", String(format: "%.1f s", seconds), "\(output) (\(detail))"])
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
