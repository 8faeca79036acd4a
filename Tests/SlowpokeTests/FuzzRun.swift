import Foundation
import TestSupport
import Testing

/// One fuzz case: the command to run in the sandbox's `work` folder, the mutated input (kept
/// when the case fails), and the files (relative to the sandbox) the command may write when it
/// succeeds: `outputs`, and new files anywhere under `newFilesUnder`.
struct FuzzCase {
    let arguments: [String]
    let input: Data
    let inputName: String
    let outputs: [String]
    var newFilesUnder: String?
    /// Whether the outputs may be written when the command exits 1 too (a batch whose other
    /// jobs failed).
    var outputsOnFailure = false
    /// What the case itself must have done (re-analysed, refused with a fact), checked after it
    /// runs: why it did not, or nil.
    var verdict: ((BoundedRun.Outcome) -> String?)? = nil

    func allows(_ path: String, created: Bool) -> Bool {
        outputs.contains(path) || created && newFilesUnder.map { path.hasPrefix($0) } == true
    }
}

/// The cases of one kind of input: their seeds, the sandbox they run in, and the properties
/// every case is checked against (see ``HostileInputFuzzTests``).
final class FuzzRun {
    /// Seconds a case may take before it counts as a hang.
    static let limit = 10.0
    let kind: String
    let seeds: [UInt64]
    let sandbox: FuzzSandbox
    let executed = Counter()
    /// Cases whose command exited 0: the ones that went all the way through.
    let succeeded = Counter()
    var outsidePaths: [String] { [sandbox.outside.path, sandbox.outside.appendingPathComponent("precious.mp4").path] }

    /// The test that runs the cases, for the replay command a failure prints.
    let test: String

    init(kind: String, defaultCases: Int, test: String = #function) throws {
        self.kind = kind
        self.test = String(test.prefix { $0 != "(" })
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["SLOWPOKE_FUZZ_SEED"], let seed = UInt64(text.replacingOccurrences(of: "0x", with: ""), radix: 16) {
            seeds = [seed]
        } else {
            let count = environment["SLOWPOKE_FUZZ"].flatMap(Int.init) ?? defaultCases
            var generator = SplitMix64(state: kind.utf8.reduce(0x5107_90CE) { $0 &* 31 &+ UInt64($1) })
            seeds = (0..<count).map { _ in generator.next() }
        }
        sandbox = try FuzzSandbox(kind)
        try FileManager.default.copyItem(at: TestSupport.media("clip60.mp4"), to: sandbox.outside.appendingPathComponent("precious.mp4"))
        try Data("keep me\n".utf8).write(to: sandbox.outside.appendingPathComponent("precious.slowpoke"))
    }

    /// Runs a case for every seed: `make` fills the sandbox's `work` folder and says what to
    /// run (nil skips the seed). Afterwards, asserts that at least `minimum` cases ran (all of
    /// them unless said).
    func each(minimum: Int? = nil, _ make: (inout HostileMutator, FuzzSandbox) throws -> FuzzCase?) throws {
        for seed in seeds {
            try sandbox.reset()
            var mutator = HostileMutator(seed: seed, outsidePaths: outsidePaths)
            guard let fuzzCase = try make(&mutator, sandbox) else { continue }
            let before = try sandbox.snapshot()
            let outcome = try run(fuzzCase.arguments)
            executed.add()
            if outcome.status == 0 && !outcome.signalled && !outcome.timedOut { succeeded.add() }
            let changes = try sandbox.changes(since: before)
            for (problem, _) in problems(outcome, changes, fuzzCase) {
                report(problem, seed: seed, fuzzCase, outcome)
            }
            if !outcome.timedOut, !outcome.signalled, let why = fuzzCase.verdict?(outcome) {
                report(why, seed: seed, fuzzCase, outcome)
            }
        }
        print("fuzz \(kind): \(executed.value) of \(seeds.count) cases ran, \(succeeded.value) exited 0")
        #expect(executed.value >= minimum ?? seeds.count, "\(kind): only \(executed.value) of \(seeds.count) cases ran")
    }

    /// `slowpoke arguments` in the sandbox's `work` folder, with its own HOME and TMPDIR, killed
    /// after ``limit`` seconds.
    func run(_ arguments: [String]) throws -> BoundedRun.Outcome {
        try BoundedRun.run(TestSupport.slowpoke, arguments, in: sandbox.work,
                           environment: ["HOME": sandbox.home.path, "TMPDIR": sandbox.tmp.path], limit: Self.limit)
    }

    /// What a case did wrong, if anything, each with whether it is a write outside the
    /// command's outputs.
    func problems(_ outcome: BoundedRun.Outcome, _ changes: FuzzSandbox.Changes, _ fuzzCase: FuzzCase) -> [(String, stray: Bool)] {
        var result: [(String, stray: Bool)] = []
        if outcome.timedOut {
            result.append(("did not finish within \(Self.limit) s", false))
        } else if outcome.signalled {
            result.append(("died of signal \(outcome.status)", false))
        } else if ![0, 1, 64].contains(outcome.status) {
            result.append(("exited with \(outcome.status)", false))
        }
        // A case killed for taking too long is failed for that alone: what the kill left
        // behind is the kill's doing.
        if outcome.timedOut { return result }
        let mayWrite = !outcome.signalled && (outcome.status == 0 || outcome.status == 1 && fuzzCase.outputsOnFailure)
        let created = Set(changes.created)
        let stray = changes.all.filter { !mayWrite || !fuzzCase.allows($0, created: created.contains($0)) }
        if !stray.isEmpty { result.append(("touched files other than its output: \(stray) (\(changes))", true)) }
        let leftovers = changes.created.filter { $0.contains(".slowpoke-tmp-") || $0.contains(".tmp-") || $0.hasPrefix("tmp/") }
        if !leftovers.isEmpty { result.append(("left temporary files behind: \(leftovers)", false)) }
        return result
    }

    func report(_ problem: String, seed: UInt64, _ fuzzCase: FuzzCase, _ outcome: BoundedRun.Outcome) {
        let hex = "0x" + String(seed, radix: 16)
        let kept = TestSupport.root.appendingPathComponent(".build/fuzz-failures/\(kind)-\(hex)-\(fuzzCase.inputName)")
        try? FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? fuzzCase.input.write(to: kept)
        Issue.record("""
            \(kind) seed \(hex): `slowpoke \(fuzzCase.arguments.joined(separator: " "))` \(problem)
            input kept at \(kept.path); replay with SLOWPOKE_FUZZ_SEED=\(hex) swift test --filter HostileInputFuzzTests/\(test)
            stderr: \(outcome.stderr.prefix(600))
            """)
    }
}
