import Composition
import Export
import Foundation
import SafeFiles
public import Project
import Synchronization
import TimePitch
import Media

/// Runs a batch's jobs (see ``BatchPlan``), several at a time: for each, the movie's timeline
/// with the job's edits, made in memory and handed to an exporter as an ``ExportSource``
/// (passthrough or at a constant frame rate), and a record beside the output so that a rerun
/// skips what is up to date.
public struct BatchRunner: Sendable {
    /// Replace outputs that exist but were not written by a batch.
    public var force: Bool
    /// Whether to stop: checked before each job starts, and throws from progress to stop one.
    public var interrupted: @Sendable () -> Bool
    /// A job's progress, by its index in the plan (from any worker thread).
    public var progress: @Sendable (_ index: Int, _ fraction: Double) -> Void
    /// A job's outcome, as soon as it is known (from any worker thread).
    public var finished: @Sendable (_ index: Int, _ outcome: BatchOutcome) -> Void
    /// Files no output may be (by device and inode, whatever its name): every movie the
    /// recipe reads, and the recipe itself.
    public var protectedInputs: [URL] = []

    public init(force: Bool, interrupted: @escaping @Sendable () -> Bool,
                progress: @escaping @Sendable (Int, Double) -> Void,
                finished: @escaping @Sendable (Int, BatchOutcome) -> Void) {
        self.force = force
        self.interrupted = interrupted
        self.progress = progress
        self.finished = finished
    }

    /// Runs `jobs` on `workers` threads and returns each job's outcome, in plan order.
    ///
    /// Each export is long, blocking libav and Rubber Band work. Running it on Swift's
    /// cooperative pool (as many threads as cores) would cap the worker count at the core count
    /// and starve other tasks, so each worker is a thread of its own that takes the next job.
    public func run(_ jobs: [BatchJob], workers: Int) -> [BatchOutcome] {
        let state = Shared(count: jobs.count)
        let done = DispatchGroup()
        for _ in 0..<max(1, workers) {
            done.enter()
            let thread = Thread {
                while let index = state.take() {
                    let outcome = interrupted() ? .notRun : perform(jobs[index], index: index)
                    state.record(outcome, at: index)
                    finished(index, outcome)
                }
                done.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        done.wait()
        return state.outcomes()
    }

    private final class Shared: Sendable {
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
    func perform(_ job: BatchJob, index: Int) -> BatchOutcome {
        let start = Date()
        do {
            if let problem = job.problem { throw BatchError.job(problem) }
            let fm = FileManager.default
            guard fm.fileExists(atPath: job.movie.path) else {
                throw ExportError.cannotOpen(path: job.name, reason: "no such file")
            }
            // Checked at planning and again now: a link may have appeared since.
            if let escape = job.outputEscape() { throw BatchError.job(escape) }
            if job.isUpToDate() { return .skipped }
            let digest = job.digest()
            let outputExists = fm.fileExists(atPath: job.output.path)
            let written = job.recordedDigest()
            // An output this batch wrote from another recipe entry (or an older movie) is
            // redone; anything else is the user's file and is kept unless forced.
            if outputExists && written == nil && !force {
                throw BatchError.notWrittenByBatch(output: job.output.lastPathComponent)
            }
            progress(index, 0)
            try InputFile.requireRegular(job.movie.path)
            var media = try Prober.probe(job.movie)
            if let program = job.export.program {
                guard let chosen = media.playing(program: program) else {
                    throw BatchError.job("\"program\": \(job.name) has no program \(program): \(media.missingProgram(program) ?? "")")
                }
                media = chosen
            }
            var timeline = try Composition(asset: media.asset(name: job.name))
            for (number, spec) in job.edits.enumerated() {
                do {
                    try spec.resolved(timelineEnd: timeline.duration).apply(to: &timeline)
                } catch {
                    throw BatchError.job("edit \(number + 1): \(error.description)")
                }
            }
            let source = ExportSource(movie: job.movie, name: job.name, media: media, timeline: timeline,
                                      protectedInputs: protectedInputs)
            // Exports warn from their muxing thread too.
            let warnings = Mutex<[String]>([])
            let journal = try digest.map(job.journal)
            let detail: String
            do {
                let warn = { (message: String) in warnings.withLock { $0.append(message) } }
                detail = try Self.export(source, output: job.output, spec: job.export, replace: outputExists,
                                         progress: { fraction in
                                             if interrupted() { throw ExportError.interrupted }
                                             progress(index, fraction)
                                         }, warning: { notice in warn(notice.text(RecipeAdvice.words)) })
                    + Self.stills(source, output: job.output, spec: job.export.stills, replace: outputExists || force, warning: warn)
            } catch {
                if let journal { job.restore(journal) }
                throw error
            }
            if let digest, let journal {
                do { try job.record(digest, after: journal) } catch { warnings.withLock { $0.append(error.localizedDescription) } }
            }
            return .done(seconds: Date().timeIntervalSince(start), detail: detail, warnings: warnings.withLock { $0 })
        } catch {
            return .failed(RecipeAdvice.notice(for: error))
        }
    }

    /// Removes what killed runs left behind: partial outputs in `outputFolder` whose process is
    /// gone (and the scratch documents that earlier versions made in the temporary folder).
    public static func removeLeftovers(outputFolder: URL) {
        StaleFiles.remove(in: FileManager.default.temporaryDirectory, prefix: "slowpoke-scratch-")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: outputFolder.path) else { return }
        let prefixes = Set(names.compactMap { name -> String? in
            guard name.hasPrefix("."), let range = name.range(of: ".slowpoke-tmp-") else { return nil }
            return String(name[..<range.upperBound])
        })
        for prefix in prefixes { StaleFiles.remove(in: outputFolder, prefix: prefix) }
    }

    /// Exports `source` as `spec` says: passthrough, or at `spec.fps`. Returns what was
    /// written, for the summary.
    static func export(_ source: ExportSource, output: URL, spec: BatchRecipe.ExportSpec, replace: Bool,
                       progress: @escaping (Double) throws -> Void, warning: @escaping (Notice) -> Void) throws -> String {
        let name = spec.algorithm ?? TimePitchAlgorithm.spectral.rawValue
        guard let algorithm = TimePitchAlgorithm(rawValue: name) else {
            throw BatchError.job("\"algorithm\": \"\(name)\" is not one of \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let settings = try TimePitchSettings(algorithm: algorithm, semitones: spec.semitones ?? 0)
        if spec.fps != nil && spec.verify == true {
            throw BatchError.job("\"verify\" checks a passthrough export against its plan; \"fps\" re-encodes every frame (leave one out)")
        }
        if let fps = spec.fps {
            // "29.97" in a recipe means the NTSC rate, as it does for `export --fps`.
            let rate: Rational
            do { rate = try FrameRateParser.parse(fps.exactDecimal() ?? fps.description) } catch {
                throw BatchError.job("\"fps\": \(error.description)")
            }
            let options = ConstantRateExporter.Options(fps: rate, stabilization: try stabilization(spec, movie: source.movie, output: output))
            let exporter = try ConstantRateExporter(source: source, output: output, options: options, settings: settings, force: replace)
            let result = try exporter.run(progress: progress, warning: warning)
            return "\(result.frames) frames at \(rate.shown) fps, \(result.duration.readable)" + (result.stabilized.map { ", \($0)" } ?? "")
                + (result.fit?.line.map { "; \($0)" } ?? "")
        }
        if spec.stabilize != nil || spec.stabilizeBorders != nil {
            // Worded in recipe keys by RecipeAdvice, as the library's refusals are.
            throw ExportError.unavailable(Notice("a passthrough export copies the pictures as they are, and steadying them re-encodes them",
                                                 remedies: [Remedy(.constantRate, "to steady them")]))
        }
        var exporter = try PassthroughExporter(source: source, output: output, settings: settings, force: replace)
        exporter.verify = spec.verify ?? false
        let result = try exporter.run(progress: progress, warning: warning)
        return "\(result.videoFrames) frames, \(result.duration.readable)" + (result.fit?.line.map { "; \($0)" } ?? "")
            + (result.verification.map { "; \($0.line)" } ?? "")
    }

    /// Takes the stills `spec` asks for from `source`'s timeline, beside `output`; what was
    /// written, for the summary (empty without stills).
    static func stills(_ source: ExportSource, output: URL, spec: BatchRecipe.StillSpec?, replace: Bool,
                       warning: @escaping (String) -> Void) throws -> String {
        guard let spec else { return "" }
        let end = source.timeline.duration
        let requests = try spec.at.map { text throws -> StillExporter.Request in
            let time: Time
            do { time = try BatchRecipe.time(text, timelineEnd: end) } catch {
                throw BatchError.job("\"stills\": \(error)")
            }
            let name = spec.fileName(movie: source.movie, time: time.shown)
            return StillExporter.Request(time: time, output: output.deletingLastPathComponent().appendingPathComponent(name))
        }
        var exporter = StillExporter(source: source)
        exporter.force = replace
        let results = try exporter.write(requests, options: .init(best: spec.best ?? 0, merge: spec.merge ?? 1), warning: warning)
        return "; stills " + results.map(\.output.lastPathComponent).joined(separator: ", ")
    }
}
