import Foundation
import TestSupport
import Testing

/// A standing fuzzer (issue 34): seeded mutations of every input a stranger may hand slowpoke
/// (documents, batch recipes, OTIO files, EDLs, WAV headers, movies), each run through the real binary
/// in a sandbox (see ``FuzzSandbox``). Every case must:
///
/// - exit with 0, 1 or 64, never by a signal (a trap is SIGILL, exit 132 in a shell);
/// - finish within ``FuzzRun/limit`` seconds (killed and failed otherwise);
/// - change no file but the command's own output, and that only when it succeeds (the sandbox's
///   `work`, `outside`, `HOME` and `TMPDIR` folders are compared file by file);
/// - leave no temporary file (`.slowpoke-tmp-`, `.tmp-`) behind.
///
/// `make test` runs 100 cases (12 to 24 of each kind); `make test-long` (SLOWPOKE_LONG_TESTS=1)
/// runs 484 (60 to 120 of each); `SLOWPOKE_FUZZ=N` runs N per kind of input, and
/// `SLOWPOKE_FUZZ_SEED=<seed>` replays one case (the seed a failure prints). A failing case's
/// input is kept in `.build/fuzz-failures/`.
@Suite struct HostileInputFuzzTests {
    @Test func documents() throws {
        let run = try FuzzRun(kind: "document", defaultCases: TestTier.count(24, long: 120))
        let template = try FuzzTemplates.documentFolder()
        let base = try Data(contentsOf: template.file("clip.slowpoke"))
        let commands: [[String]] = [["info", "clip.slowpoke"], ["info", "--json", "clip.slowpoke"], ["history", "clip.slowpoke"],
                                    ["scale", "clip.slowpoke", "--range", "0-1", "--rate", "1/2"], ["undo", "clip.slowpoke"],
                                    ["export", "clip.slowpoke", "-o", "out.mp4", "--progress", "none"]]
        try run.each { mutator, sandbox in
            try FileManager.default.copyItem(at: template.file("clip.mp4"), to: sandbox.work.appendingPathComponent("clip.mp4"))
            let input = mutator.mutateJSON(base)
            try input.write(to: sandbox.work.appendingPathComponent("clip.slowpoke"))
            let command = mutator.pick(commands)
            let writes = command[0] == "export" ? ["work/out.mp4"] : command[0] == "scale" || command[0] == "undo" ? ["work/clip.slowpoke"] : []
            return FuzzCase(arguments: command, input: input, inputName: "clip.slowpoke", outputs: writes)
        }
    }

    /// Recipes, four in five with `--dry-run` (nothing may be written), one in five run for real
    /// with one job (each movie is 2 s, copied, so about a second): then new files may appear in
    /// the recipe's folder, and nothing else may change. Half the real runs aim `output_dir` or
    /// the container at a path trick.
    @Test func recipes() throws {
        let run = try FuzzRun(kind: "recipe", defaultCases: TestTier.count(12, long: 60))
        let base = Data("""
            {"output_dir": "out", "edits": [{"scale": {"range": "25%-50%", "rate": "1/4"}}],
             "export": {"algorithm": "spectral"},
             "movies": ["a.mp4", {"path": "b.mp4", "edits": [{"remove": {"range": "0-1"}}, {"insert_gap": {"at": "end", "duration": "0.5"}}],
                                  "export": {"container": "mkv"}}]}
            """.utf8)
        try run.each { mutator, sandbox in
            for name in ["a.mp4", "b.mp4"] {
                try FileManager.default.copyItem(at: TestSupport.media("clip240.mp4"), to: sandbox.work.appendingPathComponent(name))
            }
            var input = mutator.mutateJSON(base)
            let real = mutator.below(5) == 0
            if real, mutator.below(2) == 0 {
                // Half the real runs aim their output elsewhere: the recipe's path tricks.
                var recipe = try #require(try JSONSerialization.jsonObject(with: base) as? [String: Any])
                if mutator.below(2) == 0 {
                    recipe["output_dir"] = mutator.pathTrick()
                } else {
                    recipe["export"] = ["container": "mp4/" + mutator.pathTrick()]
                }
                input = try JSONSerialization.data(withJSONObject: recipe)
            }
            try input.write(to: sandbox.work.appendingPathComponent("recipe.json"))
            guard real else {
                return FuzzCase(arguments: ["batch", "recipe.json", "--dry-run", "--progress", "none"], input: input,
                                inputName: "recipe.json", outputs: [])
            }
            return FuzzCase(arguments: ["batch", "recipe.json", "--jobs", "1", "--progress", "none"], input: input,
                            inputName: "recipe.json", outputs: [], newFilesUnder: "work/", outputsOnFailure: true)
        }
    }

    @Test func otioFiles() throws {
        let run = try FuzzRun(kind: "otio", defaultCases: TestTier.count(12, long: 60))
        let template = try FuzzTemplates.documentFolder()
        let base = try Data(contentsOf: template.file("clip.otio"))
        try run.each { mutator, sandbox in
            try FileManager.default.copyItem(at: template.file("clip.mp4"), to: sandbox.work.appendingPathComponent("clip.mp4"))
            let input = mutator.mutateJSON(base)
            try input.write(to: sandbox.work.appendingPathComponent("cut.otio"))
            let movie = mutator.below(2) == 0 ? ["--movie", "clip.mp4"] : []
            return FuzzCase(arguments: ["otio", "import", "cut.otio", "-o", "imported.slowpoke"] + movie, input: input,
                            inputName: "cut.otio", outputs: ["work/imported.slowpoke"])
        }
    }

    static let edl = """
        TITLE: fuzz
        FCM: NON-DROP FRAME

        001  clip     V     C        00:00:00:00 00:00:03:06 00:00:00:00 00:00:03:06
        002  clip     V     C        00:00:03:06 00:00:05:00 00:00:03:06 00:00:10:12
        M2   clip       007.5                    00:00:03:06
        003  clip     V     C        00:00:05:00 00:00:10:00 00:00:10:12 00:00:15:12

        """

    @Test func edlFiles() throws {
        let run = try FuzzRun(kind: "edl", defaultCases: TestTier.count(12, long: 60))
        let base = Self.edl
        // OTIO's adapter turns each mutated EDL into an .otio in one Python run; the ones it
        // accepts are imported by slowpoke (the ones it refuses never reach slowpoke).
        let converted = try FuzzTemplates.convertEDLs(seeds: run.seeds, base: base, outsidePaths: run.outsidePaths)
        let template = try FuzzTemplates.documentFolder()
        try run.each(minimum: max(1, run.seeds.count / 4)) { mutator, sandbox in
            guard let otio = converted[mutator.seed] else { return nil }
            try FileManager.default.copyItem(at: template.file("clip.mp4"), to: sandbox.work.appendingPathComponent("clip.mp4"))
            try otio.write(to: sandbox.work.appendingPathComponent("cut.otio"))
            return FuzzCase(arguments: ["otio", "import", "cut.otio", "--movie", "clip.mp4", "-o", "imported.slowpoke"],
                            input: otio, inputName: "cut.otio", outputs: ["work/imported.slowpoke"])
        }
    }

    /// The same mutated EDLs read by slowpoke's own CMX 3600 reader (`otio import cut.edl`).
    @Test func edlFilesReadNatively() throws {
        let run = try FuzzRun(kind: "edl-native", defaultCases: TestTier.count(12, long: 60))
        let template = try FuzzTemplates.documentFolder()
        try run.each { mutator, sandbox in
            try FileManager.default.copyItem(at: template.file("clip.mp4"), to: sandbox.work.appendingPathComponent("clip.mp4"))
            let input = Data(mutator.mutateLines(Self.edl).utf8)
            try input.write(to: sandbox.work.appendingPathComponent("cut.edl"))
            return FuzzCase(arguments: ["otio", "import", "cut.edl", "--movie", "clip.mp4", "-o", "imported.slowpoke"],
                            input: input, inputName: "cut.edl", outputs: ["work/imported.slowpoke"])
        }
    }

    @Test func wavHeaders() throws {
        let run = try FuzzRun(kind: "wav", defaultCases: TestTier.count(12, long: 60))
        let bases = [WAVBytes.make(.s16, channels: 2, sampleRate: 48000, frames: 4800),
                     WAVBytes.make(.f32, channels: 1, sampleRate: 44100, frames: 4410),
                     WAVBytes.make(.s24Extensible, channels: 2, sampleRate: 48000, frames: 2400)]
        try run.each { mutator, sandbox in
            let input = WAVBytes.mutate(mutator.pick(bases), with: &mutator)
            try input.write(to: sandbox.work.appendingPathComponent("in.wav"))
            let algorithm = mutator.pick(["spectral", "timeDomain", "varispeed"])
            let rate = mutator.pick(["0.5", "2", "1/3"])
            return FuzzCase(arguments: ["stretch", "in.wav", "out.wav", "--rate", rate, "--algorithm", algorithm, "--progress", "none"],
                            input: input, inputName: "in.wav", outputs: ["work/out.wav"])
        }
    }

    /// Damaged movies (``MovieBytes``) of four shapes, opened, exported as they are, and
    /// exported after a quarter-speed scale (passthrough, or at 24 fps one case in three of
    /// those). The scale is made on the damaged movie before the case; if `open` or `scale`
    /// refuses it, the case opens it instead. Those two runs must not crash or hang either.
    @Test func movies() throws {
        let run = try FuzzRun(kind: "movie", defaultCases: TestTier.count(16, long: 64))
        let templates = try FuzzTemplates.movies()
        try run.each { mutator, sandbox in
            let name = mutator.pick(templates.names)
            let container = String(name.split(separator: ".").last!)
            let input = MovieBytes.mutate(try Data(contentsOf: templates.folder.file(name)), with: &mutator)
            try input.write(to: sandbox.work.appendingPathComponent(name))
            let out = "out." + (container == "ts" ? "mp4" : container)
            let export = ["--progress", "none", "-o", out]
            switch mutator.below(3) {
            case 0:
                return FuzzCase(arguments: ["open", name], input: input, inputName: name, outputs: ["work/movie.slowpoke"])
            case 1:
                return FuzzCase(arguments: ["export", name] + export, input: input, inputName: name,
                                outputs: ["work/\(out)", "work/movie.slowpoke"])
            default:
                var edited = true
                for setup in [["open", name], ["scale", "--range", "0.5-1.2", "--rate", "1/4"]] where edited {
                    let outcome = try run.run(setup)
                    let step = FuzzCase(arguments: setup, input: input, inputName: name, outputs: ["work/movie.slowpoke"])
                    for (problem, _) in run.problems(outcome, FuzzSandbox.Changes(), step) {
                        run.report(problem, seed: mutator.seed, step, outcome)
                    }
                    edited = outcome.status == 0 && !outcome.signalled
                }
                guard edited else {
                    try? FileManager.default.removeItem(at: sandbox.work.appendingPathComponent("movie.slowpoke"))
                    return FuzzCase(arguments: ["open", name], input: input, inputName: name, outputs: ["work/movie.slowpoke"])
                }
                let rate = mutator.below(3) == 0 ? ["--fps", "24", "--preset", "ultrafast"] : []
                return FuzzCase(arguments: ["export", "movie.slowpoke"] + export + rate, input: input, inputName: name,
                                outputs: ["work/\(out)"])
            }
        }
        // Most damage leaves a movie slowpoke can still read: those cases went through the
        // export's readers and writers, not only its refusal.
        if run.seeds.count >= 20 {
            #expect(run.succeeded.value * 3 >= run.seeds.count, "only \(run.succeeded.value) of \(run.seeds.count) damaged movies went through")
        }
    }
}
