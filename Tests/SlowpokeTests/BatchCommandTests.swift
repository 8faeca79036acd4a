import Foundation
import TestSupport
import Testing

@Suite struct BatchCommandTests {
    /// The test clips, one corrupt file, and a recipe that slows 25%-50% of each to 1/4.
    func batchFolder(extra: String = "") throws -> TemporaryFolder {
        let folder = try TemporaryFolder("batch")
        try FileManager.default.createDirectory(at: folder.file("clips"), withIntermediateDirectories: true)
        for name in ["clip240.mp4", "noaudio.mp4", "ntsc2997.mp4", "rotated.mp4"] {
            try folder.copy(media: name, as: "clips/\(name)")
        }
        // A file that starts like nothing libavformat knows.
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: folder.file("clips/corrupt.mp4"))
        let recipe = """
            {"output_dir": "out", "export": {"algorithm": "varispeed"},
             "edits": [{"scale": {"range": "25%-50%", "rate": "1/4"}}],
             "movies": ["clips/*.mp4"\(extra)]}
            """
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        return folder
    }

    func modificationDates(_ folder: URL) throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            dates[name] = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.modificationDate] as? Date
        }
        return dates
    }

    @Test func everyGoodJobFinishesTheBadOneIsReportedAndARerunDoesNoWork() throws {
        let folder = try batchFolder()
        let first = try slowpoke("batch", "recipe.json", "--jobs", "2", in: folder)
        #expect(first.status == 1)
        #expect(first.stderr.hasSuffix("slowpoke: error: 1 of 5 jobs failed\n"), "\(first.stderr)")
        let rows = first.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        // The job rows: between the heading and the count (warnings, once each, follow it).
        let jobRows = rows.dropFirst().filter { Int($0.first ?? "") != nil && !$0[1].hasPrefix("job") }
        let status = Dictionary(uniqueKeysWithValues: jobRows.map { ($0[1], $0[2]) })
        #expect(status == ["clips/clip240.mp4": "done", "clips/corrupt.mp4": "failed", "clips/noaudio.mp4": "done",
                           "clips/ntsc2997.mp4": "done", "clips/rotated.mp4": "done"])
        #expect(first.stdout.contains("is not a movie or audio file that slowpoke can read"))
        #expect(first.stdout.contains("\n5 jobs: 4 done, 0 skipped, 1 failed\n"))
        // Every output is the input with 25%-50% at quarter speed: 1 + 0.25 x 3 = 1.75 times as long.
        for name in ["clip240", "noaudio", "ntsc2997", "rotated"] {
            let input = try TestSupport.ffprobe(folder.file("clips/\(name).mp4"), ["-show_entries", "format=duration"])
            let output = try TestSupport.ffprobe(folder.file("out/\(name)-slowpoke.mp4"), ["-show_entries", "format=duration:stream=codec_type,nb_frames"])
            let before = Double((input["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
            let after = Double((output["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
            #expect(abs(after - before * 1.75) < 0.05, "\(name): \(before) s became \(after) s")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/corrupt-slowpoke.mp4").path))

        // Again: nothing is redone, nothing is touched, and the corrupt file still fails.
        let before = try modificationDates(folder.file("out"))
        // A rewrite shows in the dates at once where the file system keeps fractions of a
        // second (ext4, tmpfs); where it keeps whole seconds, let one pass first.
        if before.values.allSatisfy({ $0.timeIntervalSince1970.rounded() == $0.timeIntervalSince1970 }) { Thread.sleep(forTimeInterval: 1.1) }
        let second = try slowpoke("batch", "recipe.json", in: folder)
        #expect(second.status == 1)
        #expect(second.stdout.hasSuffix("5 jobs: 0 done, 4 skipped, 1 failed\n"), "\(second.stdout)")
        #expect(try modificationDates(folder.file("out")) == before)

        // A changed movie is redone; the others are still skipped.
        let movie = folder.file("clips/noaudio.mp4")
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: movie.path)
        let third = try slowpoke("batch", "recipe.json", "--progress", "json", in: folder)
        #expect(third.stdout.contains("5 jobs: 1 done, 3 skipped, 1 failed\n"), "\(third.stdout)")
        let events = third.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let jobs = events.filter { $0["event"] as? String == "job" }
        #expect(jobs.count == 5)
        #expect(jobs.filter { $0["status"] as? String == "done" }.map { $0["movie"] as? String } == ["[3/5] clips/noaudio.mp4"])
    }

    @Test func aChangedRecipeEntryRedoesOnlyThatJob() throws {
        let folder = try TemporaryFolder("batch")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try folder.copy(media: "noaudio.mp4", as: "b.mp4")
        func write(_ rate: String) throws {
            let recipe = """
                {"movies": [{"path": "a.mp4", "edits": [{"remove": {"range": "0-1"}}]},
                            {"path": "b.mp4", "edits": [{"scale": {"range": "0-1", "rate": "\(rate)"}}]}]}
                """
            try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        }
        try write("1/2")
        #expect(try slowpoke("batch", "recipe.json", in: folder).stdout.hasSuffix("2 jobs: 2 done, 0 skipped, 0 failed\n"))
        try write("1/4")
        let again = try slowpoke("batch", "recipe.json", in: folder)
        #expect(again.status == 0)
        #expect(again.stdout.hasSuffix("2 jobs: 1 done, 1 skipped, 0 failed\n"), "\(again.stdout)")
        let probe = try TestSupport.ffprobe(folder.file("b-slowpoke.mp4"), ["-show_entries", "format=duration"])
        let input = try TestSupport.ffprobe(folder.file("b.mp4"), ["-show_entries", "format=duration"])
        let d = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
        let d0 = Double((input["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
        #expect(abs(d - (d0 + 3)) < 0.05, "1 s at 1/4 adds 3 s: \(d0) -> \(d)")
    }

    @Test func fpsMakesAConstantRateExport() throws {
        let folder = try TemporaryFolder("batch")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try folder.copy(media: "noaudio.mp4", as: "b.mp4")
        let recipe = "{\"movies\": [\"a.mp4\", {\"path\": \"b.mp4\", \"export\": {\"fps\": \"29.97\"}}]}"
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let result = try slowpoke("batch", "recipe.json", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        // a keeps every frame (passthrough); b is re-encoded at exactly 30000/1001 fps.
        let a = try videoFrames(folder.file("a-slowpoke.mp4")).pts.count
        let b = try videoFrames(folder.file("b-slowpoke.mp4")).pts.count
        #expect(a == 120)
        #expect(b == 60)
        let stream = try videoStream(folder.file("b-slowpoke.mp4"), "r_frame_rate")
        #expect(stream["r_frame_rate"] as? String == "30000/1001")
    }

    @Test func aRecipeOnStdinResolvesPathsAgainstTheCurrentFolder() throws {
        let folder = try TemporaryFolder("batch")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        let recipe = "{\"output_dir\": \"done\", \"movies\": [{\"path\": \"a.mp4\", \"edits\": [{\"remove\": {\"range\": \"0-50%\"}}]}]}"
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let slowpokePath = TestSupport.slowpoke.path
        let result = try TestSupport.tool("bash", ["-c", "cd '\(folder.url.path)' && '\(slowpokePath)' batch - --progress none < recipe.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 job: 1 done, 0 skipped, 0 failed\n"), "\(result.stdout)")
        let input = try TestSupport.ffprobe(folder.file("a.mp4"), ["-show_entries", "format=duration"])
        let output = try TestSupport.ffprobe(folder.file("done/a-slowpoke.mp4"), ["-show_entries", "format=duration"])
        let before = Double((input["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
        let after = Double((output["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
        #expect(abs(after - before / 2) < 0.05, "half of \(before) s removed: \(after) s")
    }

    @Test func anInterruptStopsEveryJobAndLeavesNoPartialOutput() throws {
        let folder = try TemporaryFolder("batch")
        for i in 1...3 { try folder.copy(media: "clip60.mp4", as: "c\(i).mp4") }
        let recipe = "{\"output_dir\": \"out\", \"edits\": [{\"scale\": {\"range\": \"0-50%\", \"rate\": \"1/4\"}}], \"movies\": [\"*.mp4\"]}"
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let out = folder.file("out")
        let result = try TestSupport.interrupt(["batch", "recipe.json", "--jobs", "2", "--progress", "none"], in: folder.url, signal: SIGINT) {
            // Under way once a temporary output exists.
            ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).contains { $0.contains(".slowpoke-tmp-") }
        }
        #expect(result.wasRunning)
        #expect(result.status == 130)
        #expect(result.stderr.hasSuffix("slowpoke: error: interrupted; no output was written\n"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test func badRecipesAreRefusedWithWhereTheyAreWrong() throws {
        let folder = try TemporaryFolder("batch")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try Data("{\"movies\": [{\"path\": \"a.mp4\", \"edits\": [{\"scale\": {\"range\": \"0-1\"}}]}]}".utf8).write(to: folder.file("r.json"))
        let result = try slowpoke("batch", "r.json", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: r.json: not a valid recipe: at .movies[0].edits[0].scale: a scale edit needs exactly one of rate and duration\n")
        try Data("{\"movies\": [{\"path\": \"a.mp4\", \"edits\": [{\"remove\": {\"range\": \"50%-150%\"}}]}]}".utf8).write(to: folder.file("r.json"))
        let beyond = try slowpoke("batch", "r.json", in: folder)
        #expect(beyond.stdout.contains("edit 1: 150% is not between 0% and 100% of the timeline"), "\(beyond.stdout)")
    }

    /// A misspelt key would otherwise be skipped and the movie come out unedited (`"edit"`) or
    /// exported otherwise than asked (`"algoritm"`): the recipe is refused, naming the key, where
    /// it is, and the nearest right one; nothing is written.
    @Test(arguments: [
        ("{\"edit\": [{\"remove\": {\"range\": \"0-1\"}}], \"movies\": [\"a.mp4\"]}", "a recipe has no key \"edit\" (did you mean \"edits\"?)"),
        ("{\"export\": {\"algoritm\": \"varispeed\"}, \"movies\": [\"a.mp4\"]}", "at .export: an export has no key \"algoritm\" (did you mean \"algorithm\"?)"),
        ("{\"movies\": [{\"path\": \"a.mp4\", \"ouput\": \"b.mp4\"}]}", "at .movies[0]: a movie has no key \"ouput\" (did you mean \"output\"?)"),
        ("{\"movies\": [\"a.mp4\"], \"edits\": [{\"scale\": {\"range\": \"0-1\", \"rate\": 0.5, \"bogus\": 1}}]}", "at .edits[0].scale: a scale edit has no key \"bogus\"; its keys are range, rate, duration"),
    ])
    func unknownKeysAreRefused(recipe: String, said: String) throws {
        let folder = try TemporaryFolder("batch-keys")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try Data(recipe.utf8).write(to: folder.file("r.json"))
        let result = try slowpoke("batch", "r.json", in: folder)
        #expect(result.status == 1 && result.stderr.contains("r.json: not a valid recipe: \(said)"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["a.mp4", "r.json"])
    }

    /// An output that is a movie the recipe reads, another job's or the job's own, is refused
    /// even with --force (which replaces outputs, never inputs), in the dry run too.
    @Test func anOutputIsNeverARecipesMovie() throws {
        let folder = try TemporaryFolder("batch-inputs")
        try folder.copy(media: "noaudio.mp4", as: "x.mp4")
        try folder.copy(media: "clip240.mp4", as: "y.mp4")
        let before = try Data(contentsOf: folder.file("x.mp4"))
        let recipe = "{\"edits\": [{\"remove\": {\"range\": \"0-0.1\"}}], \"movies\": [\"x.mp4\", {\"path\": \"y.mp4\", \"output\": \"x.mp4\"}, {\"path\": \"y.mp4\", \"output\": \"y.mp4\"}]}"
        try Data(recipe.utf8).write(to: folder.file("r.json"))
        let dry = try slowpoke("batch", "r.json", "--force", "--dry-run", in: folder)
        #expect(dry.stdout.contains("its output x.mp4 is the movie of job 1") && dry.stdout.contains("its output y.mp4 is its own movie"), "\(dry.stdout)")
        let result = try slowpoke("batch", "r.json", "--force", in: folder)
        #expect(result.status == 1 && result.stdout.contains("x-slowpoke.mp4"), "\(result.stdout)\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("x.mp4")) == before)
    }

    /// The dry run says what the run would do: a missing movie and an output that is someone
    /// else's file would fail, and it exits as the run would.
    @Test func aDryRunShowsTheFailuresARunWouldHave() throws {
        let folder = try TemporaryFolder("batch-dry")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try folder.copy(media: "noaudio.mp4", as: "b.mp4")
        try Data("not a movie".utf8).write(to: folder.file("b-slowpoke.mp4"))
        try Data("{\"movies\": [\"a.mp4\", \"b.mp4\", \"gone.mp4\"]}".utf8).write(to: folder.file("r.json"))
        let dry = try slowpoke("batch", "r.json", "--dry-run", in: folder)
        #expect(dry.status == 1 && dry.stderr.contains("2 of 3 jobs would fail"), "\(dry.stderr)")
        #expect(dry.stdout.contains("run    \(folder.url.standardizedFileURL.path)/a-slowpoke.mp4") && dry.stdout.contains("b-slowpoke.mp4 exists and was not written by slowpoke batch")
                && dry.stdout.contains("gone.mp4: no such file"), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a-slowpoke.mp4").path))
    }
}
