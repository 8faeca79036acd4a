import ArgumentParser
import Composition
import Project
import Batch
import Export
import Foundation
import SafeFiles
import Synchronization
import TimePitch

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Retime many movies from a recipe, several at a time.",
        discussion: """
            The recipe (JSON; see docs/batch.md, installed under share/doc/slowpoke) lists movies, the edits for each \
            (ranges in seconds, timecodes or percentages of the timeline: 25%-50%) and export \
            settings. Paths are relative to the recipe's folder (to the current folder for `-`, \
            which reads the recipe from stdin).

            Jobs run in parallel, --jobs at a time. Each shows one line of progress; a table \
            sums them up at the end. A job that fails (a corrupt movie, an edit that does not \
            fit) never stops the others, and the exit status is 1 if any failed. An output that \
            is complete, newer than its movie and made from the same recipe entry is skipped, so \
            rerunning a batch redoes only what changed.

            --shard K/N runs the K-th of N disjoint parts of the recipe, so that N machines \
            sharing the folders (a Kubernetes Indexed Job, a Slurm job array, GNU parallel over \
            SSH: see docs/shards.md) do the whole recipe between them, each job once: every \
            machine sorts the jobs by movie path and output name and takes every N-th. \
            --dry-run prints the jobs a run (or a shard) would do, and does nothing.

            Examples:
              slowpoke batch recipe.json
              slowpoke batch recipe.json --jobs 1 --progress json
              cat recipe.json | slowpoke batch -
              slowpoke batch recipe.json --shard 2/3 --dry-run
              slowpoke batch recipe.json --shard "$SLURM_ARRAY_TASK_ID/4"
            """)

    @Argument(help: ArgumentHelp("The recipe, or - to read it from stdin.", valueName: "recipe.json|-"),
              completion: .file(extensions: ["json"]))
    var recipe: String

    @Option(help: ArgumentHelp("How many movies to work on at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Progress on stderr: auto (live lines on a terminal, plain lines otherwise), bar, json or none.", valueName: "style"))
    var progress: ProgressStyle = .auto

    /// Shard K of N (K from 1): the jobs whose position in the sorted plan is K-1 modulo N.
    @Option(help: ArgumentHelp("Run only the K-th of N disjoint parts of the recipe (K from 1 to N), for running one recipe on N machines.", valueName: "K/N"),
            transform: { text in try BatchShard(parsing: text) })
    var shard: BatchShard?

    @Flag(help: "Print the jobs this run (or shard) would do, and whether each is up to date, without doing them.")
    var dryRun = false

    @Flag(help: "Replace outputs that exist but were not written by a batch (outputs from an earlier run of the same recipe are handled without it).")
    var force = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let (data, base, shown) = try readRecipe()
        let parsed = try BatchRecipe.parse(data, path: shown)
        let all = BatchPlan.jobs(for: parsed, base: base)
        guard !all.isEmpty else { throw CLIError("\(shown) lists no movies") }
        let planned = shard.map { $0.select(all) } ?? all
        if dryRun {
            let (text, failing) = BatchDisplay.dryRun(planned, total: all.count, shard: shard, force: force)
            print(text, terminator: "")
            // The exit status a run would have.
            if failing > 0 { throw CLIError("\(failing) of \(planned.count) job\(planned.count == 1 ? "" : "s") would fail") }
            return
        }
        guard !planned.isEmpty else {
            print("shard \(shard?.description ?? "") has no jobs: the recipe has \(all.count)")
            return
        }
        if parsed.outputDirectory != nil {
            let folder = BatchPlan.outputFolder(of: parsed, base: base)
            if let escape = BatchPlan.escape(of: folder, from: base) { throw CLIError(escape) }
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw ExportError.cannotWrite(path: folder.path, reason: "cannot create the output folder: \(error.localizedDescription)")
            }
        }
        BatchRunner.removeLeftovers(outputFolder: BatchPlan.outputFolder(of: parsed, base: base))
        let workers = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, planned.count)
        let display = BatchDisplay(style: progress, jobs: planned, total: all.count)
        var runner = BatchRunner(force: force, interrupted: { Interrupt.received },
                                 progress: { display.update($0, fraction: $1) },
                                 finished: { index, outcome in
                                     if case .done = outcome {
                                         Terminal.interruptMessage("interrupted; the jobs in progress left nothing behind, and the finished outputs are kept (a rerun does the rest)")
                                     }
                                     display.update(index, outcome: outcome)
                                 })
        runner.protectedInputs = all.map(\.movie) + (recipe == "-" ? [] : [URL(fileURLWithPath: recipe)])
        let outcomes = runner.run(planned, workers: workers)
        display.finish()
        print(BatchDisplay.table(planned, outcomes), terminator: "")
        if Interrupt.received {
            throw BatchInterrupted(kept: outcomes.filter { if case .done = $0 { true } else { false } }.count)
        }
        let failed = outcomes.filter { if case .failed = $0 { true } else { false } }.count
        if failed > 0 { throw CLIError("\(failed) of \(planned.count) job\(planned.count == 1 ? "" : "s") failed") }
    }

    private func readRecipe() throws -> (Data, URL, String) {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if recipe == "-" {
            return (FileHandle.standardInput.readDataToEndOfFile(), here, "the recipe on stdin")
        }
        let url = URL(fileURLWithPath: recipe)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ExportError.cannotOpen(path: recipe, reason: "no such file or not readable")
        }
        return (try InputFile.read(url), url.deletingLastPathComponent(), recipe)
    }
}

/// A batch stopped by SIGINT or SIGTERM (exit 130): the jobs in progress leave nothing
/// behind, the finished ones keep their outputs.
struct BatchInterrupted: LocalizedError, CustomStringConvertible {
    let kept: Int
    var description: String {
        kept == 0 ? ExportError.interrupted.description
            : "interrupted; the jobs in progress left nothing behind, and the \(kept) finished output\(kept == 1 ? " is" : "s are") kept (a rerun does the rest)"
    }
    var errorDescription: String? { description }
}
