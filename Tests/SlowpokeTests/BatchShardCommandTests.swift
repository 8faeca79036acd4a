import Foundation
import TestSupport
import Testing

@Suite struct BatchShardCommandTests {
    /// Seven 1-second clips (a test pattern and a tone each) in `clips/`, and a recipe that
    /// slows 25%-50% of each to half speed into `out/`.
    func sevenMovies() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("shards")
        try FileManager.default.createDirectory(at: folder.file("clips"), withIntermediateDirectories: true)
        for i in 1...7 {
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=30",
                                                       "-f", "lavfi", "-i", "sine=f=\(220 * i):d=1", "-c:v", "libx264", "-g", "10",
                                                       "-c:a", "aac", "-shortest", folder.file("clips/m\(i).mp4").path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let recipe = """
            {"output_dir": "out", "export": {"algorithm": "varispeed"},
             "edits": [{"scale": {"range": "25%-50%", "rate": "1/2"}}], "movies": ["clips/*.mp4"]}
            """
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        return folder
    }

    /// GNU parallel's output with --tag: each shard's table, its lines prefixed by the shard.
    func rows(_ output: String) -> [(shard: String, cells: [String])] {
        output.split(separator: "\n").map { line in
            let cells = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            return (cells.first ?? "", Array(cells.dropFirst()))
        }
    }

    /// Three shards at once, as three machines would run them: each of the seven outputs is
    /// written by exactly one shard, and running all three again skips everything.
    @Test func threeShardsAtOnceWriteEveryOutputOnceAndARerunSkipsAll() throws {
        let folder = try sevenMovies()
        let command = [TestSupport.slowpoke.path, "batch", "recipe.json", "--shard", "{}/3", "--progress", "none"]
        let first = try TestSupport.tool("parallel", ["-j3", "--tag"] + command + [":::", "1", "2", "3"], in: folder.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let done = rows(first.stdout).filter { $0.cells.count > 2 && $0.cells[2] == "done" }
        #expect(done.map { $0.cells[1] }.sorted() == (1...7).map { "clips/m\($0).mp4" }, "\(first.stdout)")
        // Shard K takes positions K-1, K-1+3, … of the sorted plan: m1 m4 m7, m2 m5, m3 m6.
        #expect(Dictionary(grouping: done, by: \.shard).mapValues { $0.map { $0.cells[1] } }
                == ["1": ["clips/m1.mp4", "clips/m4.mp4", "clips/m7.mp4"], "2": ["clips/m2.mp4", "clips/m5.mp4"], "3": ["clips/m3.mp4", "clips/m6.mp4"]])
        for shard in ["1", "2", "3"] {
            let size = shard == "1" ? 3 : 2
            #expect(first.stdout.contains("\(shard)\t\(size) jobs: \(size) done, 0 skipped, 0 failed\n"), "\(first.stdout)")
        }
        let listing = try FileManager.default.contentsOfDirectory(atPath: folder.file("out").path).sorted()
        #expect(listing == (1...7).flatMap { [".m\($0)-slowpoke.mp4.slowpoke-batch", "m\($0)-slowpoke.mp4"] }.sorted())
        for i in 1...7 {
            let probe = try TestSupport.ffprobe(folder.file("out/m\(i)-slowpoke.mp4"), ["-show_entries", "format=duration"])
            let seconds = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? .nan
            #expect(abs(seconds - 1.25) < 0.05, "m\(i): \(seconds) s")
        }

        let dates = try listing.map { try FileManager.default.attributesOfItem(atPath: folder.file("out/\($0)").path)[.modificationDate] as? Date }
        let second = try TestSupport.tool("parallel", ["-j3", "--tag"] + command + [":::", "1", "2", "3"], in: folder.url)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(rows(second.stdout).filter { $0.cells.count > 2 && $0.cells[2] == "skipped" }.count == 7, "\(second.stdout)")
        #expect(!second.stdout.contains("done  "), "\(second.stdout)")
        #expect(try listing.map { try FileManager.default.attributesOfItem(atPath: folder.file("out/\($0)").path)[.modificationDate] as? Date } == dates)
    }

    /// --dry-run lists a shard's jobs with their numbers in the whole plan, and does nothing.
    @Test func aDryRunPrintsTheShardsJobsAndWritesNothing() throws {
        let folder = try sevenMovies()
        let result = try slowpoke("batch", "recipe.json", "--shard", "2/3", "--dry-run", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        // The full paths the outputs would have (a recipe from someone else cannot hide where).
        let out = folder.url.standardizedFileURL.path + "/out"
        #expect(result.stdout == """
            #  movie         would  output
            2  clips/m2.mp4  run    \(out)/m2-slowpoke.mp4
            5  clips/m5.mp4  run    \(out)/m5-slowpoke.mp4
            shard 2/3: 2 of 7 jobs: 2 to run, 0 up to date, 0 would fail

            """)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out").path))
    }

    /// `"output": "../../evil.mp4"` would have written two folders above output_dir.
    @Test func anOutputThatIsAPathIsRefusedAndNothingIsWritten() throws {
        let folder = try TemporaryFolder("shards")
        try FileManager.default.createDirectory(at: folder.file("a/b"), withIntermediateDirectories: true)
        try folder.copy(media: "noaudio.mp4", as: "a/b/m.mp4")
        try Data("{\"output_dir\": \"out\", \"movies\": [{\"path\": \"m.mp4\", \"output\": \"../../evil.mp4\"}]}".utf8).write(to: folder.file("a/b/r.json"))
        let result = try slowpoke("batch", "a/b/r.json", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: a/b/r.json: not a valid recipe: at .movies[0].output: the output of \"m.mp4\", \"../../evil.mp4\", contains a path separator; an output is a file name in output_dir\n")
        #expect(try folder.listing() == ["a"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("a/b").path).sorted() == ["m.mp4", "r.json"])
    }
}
