import Foundation
import TestSupport
import Testing

/// Issue 34, tried as an attacker and as a user with broken files: nothing replaces an input,
/// nothing lands outside where it may, nothing hangs. Each test failed before its fix.
@Suite struct HostileInputTests {
    private func bytes(_ url: URL) -> Data? { FileManager.default.contents(atPath: url.path) }

    // MARK: Data loss

    @Test func otioExportNeverReplacesTheMovieOrTheDocument() throws {
        let folder = try folderWithDocument()
        let movie = try #require(bytes(folder.file("clip.mp4")))
        let document = try #require(bytes(folder.file("clip.slowpoke")))
        for target in ["clip.mp4", "clip.slowpoke", "./clip.mp4", "../\(folder.url.lastPathComponent)/clip.mp4"] {
            let result = try slowpoke("otio", "export", "-o", target, "--force", in: folder)
            #expect(result.status == 1, "\(target)")
            #expect(result.stderr.contains("is the input"), "\(result.stderr)")
        }
        try FileManager.default.linkItem(at: folder.file("clip.mp4"), to: folder.file("hard.otio"))
        let hard = try slowpoke("otio", "export", "-o", "hard.otio", "--force", in: folder)
        #expect(hard.stderr.contains("is the same file as the input"), "\(hard.stderr)")
        #expect(bytes(folder.file("clip.mp4")) == movie)
        #expect(bytes(folder.file("clip.slowpoke")) == document)
        #expect(try folder.listing().allSatisfy { !$0.contains("tmp") })
    }

    /// A movie whose own name ends in .slowpoke is its own document's name: refused, kept.
    @Test func aMovieNamedLikeItsDocumentIsNeverOverwritten() throws {
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "x.slowpoke")
        let movie = try #require(bytes(folder.file("x.slowpoke")))
        let result = try slowpoke("open", "x.slowpoke", "--force", in: folder)
        #expect(result.status == 1)
        #expect(bytes(folder.file("x.slowpoke")) == movie)
        #expect(try folder.listing() == ["x.slowpoke"])
    }

    // MARK: Symbolic links

    @Test func anExportOutputThatIsALinkIsRefusedEvenWithForce() throws {
        let folder = try folderWithDocument()
        try Data("precious".utf8).write(to: folder.file("precious.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("out.mp4").path, withDestinationPath: "precious.txt")
        let result = try slowpoke("export", "-o", "out.mp4", "--force", "--progress", "none", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("out.mp4 is a symbolic link to precious.txt"), "\(result.stderr)")
        #expect(bytes(folder.file("precious.txt")) == Data("precious".utf8))
    }

    /// A document that is a link: the edit reaches its target, the link stays, 600 stays 600.
    @Test func aLinkedDocumentIsEditedThroughItsLinkAndKeepsItsMode() throws {
        let folder = try folderWithDocument()
        try FileManager.default.createDirectory(at: folder.file("real"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: folder.file("clip.slowpoke"), to: folder.file("real/clip.slowpoke"))
        chmod(folder.file("real/clip.slowpoke").path, 0o600)
        try FileManager.default.createSymbolicLink(atPath: folder.file("clip.slowpoke").path, withDestinationPath: "real/clip.slowpoke")
        let result = try slowpoke("scale", "clip.slowpoke", "--range", "1-2", "--rate", "0.5", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.file("clip.slowpoke").path) == "real/clip.slowpoke")
        let saved = try String(contentsOf: folder.file("real/clip.slowpoke"), encoding: .utf8)
        #expect(saved.contains("\"scale\""))
        var info = stat()
        #expect(stat(folder.file("real/clip.slowpoke").path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // The old predictable temporary name, planted as a link, is never followed.
        try Data("precious".utf8).write(to: folder.file("precious.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("real/.clip.slowpoke.tmp-1").path, withDestinationPath: "../precious.txt")
        #expect(try slowpoke("undo", "clip.slowpoke", in: folder).status == 0)
        #expect(bytes(folder.file("precious.txt")) == Data("precious".utf8))
    }

    // MARK: Recipes

    @Test(arguments: [
        #"{"export": {"container": "mp4/../../../elsewhere/precious.mp4"}, "movies": ["clip.mp4"]}"#,
        #"{"output_dir": "/tmp", "movies": ["clip.mp4"]}"#,
        #"{"output_dir": "../out", "movies": ["clip.mp4"]}"#,
        #"{"output_dir": "out/../../x", "movies": ["clip.mp4"]}"#,
        #"{"output_dir": "~/out", "movies": ["clip.mp4"]}"#,
        #"{"movies": [{"path": "clip.mp4", "output": "../precious.mp4"}]}"#,
    ])
    func aRecipeCannotWriteOutsideItsFolder(_ recipe: String) throws {
        let outside = try TemporaryFolder("outside")
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        try Data(recipe.utf8).write(to: folder.file("r.json"))
        for dry in [true, false] {
            let result = try TestSupport.run(TestSupport.slowpoke, ["batch", "r.json", "--force", "--progress", "none"] + (dry ? ["--dry-run"] : []),
                                             in: folder.url)
            #expect(result.status == 1, "\(recipe): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("not a valid recipe"), "\(result.stderr)")
        }
        #expect(try folder.listing() == ["clip.mp4", "r.json"])
        #expect(try outside.listing().isEmpty)
    }

    /// An output folder that is a link leading out of the recipe's folder is refused too.
    @Test func anOutputFolderLinkedElsewhereIsRefused() throws {
        let outside = try TemporaryFolder("outside")
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        try FileManager.default.createSymbolicLink(atPath: folder.file("out").path, withDestinationPath: outside.url.path)
        try Data(#"{"output_dir": "out", "movies": ["clip.mp4"]}"#.utf8).write(to: folder.file("r.json"))
        let dry = try slowpoke("batch", "r.json", "--dry-run", in: folder)
        #expect(dry.status == 1 && dry.stdout.contains("leads outside the recipe's folder"), "\(dry.stdout)")
        let run = try slowpoke("batch", "r.json", "--progress", "none", in: folder)
        #expect(run.status == 1 && run.stderr.contains("leads outside the recipe's folder"), "\(run.stderr)")
        #expect(try outside.listing().isEmpty)
    }

    /// An output name that is a hard link to another job's movie is that movie: refused even
    /// with --force, however the names differ.
    @Test func anOutputThatIsAnotherJobsMovieByAnyNameIsRefused() throws {
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "noaudio.mp4", as: "a.mp4")
        try folder.copy(media: "noaudio.mp4", as: "b.mp4")
        try FileManager.default.linkItem(at: folder.file("b.mp4"), to: folder.file("a-slowpoke.mp4"))
        try Data(#"{"movies": ["a.mp4", "b.mp4"]}"#.utf8).write(to: folder.file("r.json"))
        let movie = try #require(bytes(folder.file("b.mp4")))
        let run = try slowpoke("batch", "r.json", "--force", "--progress", "none", in: folder)
        #expect(run.status == 1 && run.stdout.contains("is the same file as the input"), "\(run.stdout)")
        #expect(bytes(folder.file("b.mp4")) == movie)
        var a = stat(), b = stat()
        #expect(stat(folder.file("a-slowpoke.mp4").path, &a) == 0 && stat(folder.file("b.mp4").path, &b) == 0 && a.st_ino == b.st_ino)
    }

    @Test func theDryRunShowsFullOutputPaths() throws {
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        try Data(#"{"output_dir": "out/sub", "movies": ["clip.mp4"]}"#.utf8).write(to: folder.file("r.json"))
        let dry = try slowpoke("batch", "r.json", "--dry-run", in: folder)
        #expect(dry.status == 0)
        #expect(dry.stdout.contains(folder.url.standardizedFileURL.path + "/out/sub/clip-slowpoke.mp4"), "\(dry.stdout)")
    }

    // MARK: Batch after SIGKILL

    /// What a killed run left (a partial output and a scratch folder of a dead process, an
    /// output whose record was only journalled) does not stop a rerun, and goes.
    @Test func aRerunRecoversFromAKilledRun() throws {
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        try Data(#"{"output_dir": "out", "edits": [{"scale": {"range": "1-2", "rate": "1/2"}}], "movies": ["clip.mp4"]}"#.utf8)
            .write(to: folder.file("r.json"))
        #expect(try slowpoke("batch", "r.json", "--progress", "none", in: folder).status == 0)
        let out = folder.file("out")
        // As a kill between the output's rename and its record leaves it.
        let marker = out.appendingPathComponent(".clip-slowpoke.mp4.slowpoke-batch")
        let digest = try String(contentsOf: marker, encoding: .utf8)
        try Data(("pending:" + digest).utf8).write(to: marker)
        let dead = Int32.max - 11
        let partial = out.appendingPathComponent(".clip-slowpoke.mp4.slowpoke-tmp-\(dead)-abc")
        try Data("partial".utf8).write(to: partial)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-scratch-\(dead)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let rerun = try slowpoke("batch", "r.json", "--progress", "none", in: folder)
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(rerun.stdout.contains("1 done"), "\(rerun.stdout)")
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
        #expect(try String(contentsOf: marker, encoding: .utf8) == digest)
    }

    @Test func namesArePrintedWithControlCharactersEscaped() throws {
        let folder = try TemporaryFolder("hostile")
        let name = "a\u{1B}]0;owned\u{07}b.mp4"
        try folder.copy(media: "clip60.mp4", as: name)
        try Data(#"{"movies": ["a*"]}"#.utf8).write(to: folder.file("r.json"))
        let dry = try slowpoke("batch", "r.json", "--dry-run", in: folder)
        #expect(!dry.stdout.contains("\u{1B}") && dry.stdout.contains("a\\u{1B}]0;owned\\u{7}b.mp4"), "\(dry.stdout)")
        let missing = try slowpoke("info", "x\u{1B}[2J.slowpoke", in: folder)
        #expect(missing.status != 0 && !missing.stderr.contains("\u{1B}"), "\(missing.stderr)")
    }

    // MARK: Media identity

    /// Two cameras' C0001.MP4 in one timeline: --movie cannot stand for both.
    @Test func clipsOfTwoFilesWithOneNameAreNotBoundToOne() throws {
        let folder = try TemporaryFolder("hostile")
        for camera in ["camA", "camB"] {
            try FileManager.default.createDirectory(at: folder.file(camera), withIntermediateDirectories: true)
            try folder.copy(media: "clip60.mp4", as: "\(camera)/C0001.MP4")
        }
        func clip(_ path: String, _ start: Int) -> String {
            #"{"OTIO_SCHEMA": "Clip.1", "name": "c", "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": {"OTIO_SCHEMA": "RationalTime.1", "value": \#(start), "rate": 60}, "duration": {"OTIO_SCHEMA": "RationalTime.1", "value": 60, "rate": 60}}, "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "\#(path)"}}"#
        }
        let otio = #"{"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V1", "children": [\#(clip("camA/C0001.MP4", 0)), \#(clip("camB/C0001.MP4", 120))]}]}}"#
        try Data(otio.utf8).write(to: folder.file("t.otio"))
        let result = try slowpoke("otio", "import", "t.otio", "--movie", "camA/C0001.MP4", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("2 different files named C0001.MP4"), "\(result.stderr)")
        #expect(result.stderr.contains("camA/C0001.MP4") && result.stderr.contains("camB/C0001.MP4"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("camA/C0001.slowpoke").path))
    }

    // MARK: Limits and hangs

    @Test func gapsFreezesAndTimelinesHaveLimits() throws {
        let folder = try folderWithDocument()
        let before = try #require(bytes(folder.file("clip.slowpoke")))
        let gap = try slowpoke("insert-gap", "--at", "1", "--duration", "1000000000", in: folder)
        #expect(gap.status == 1 && gap.stderr.contains("a gap lasts at most 24 hours"), "\(gap.stderr)")
        let freeze = try slowpoke("freeze", "--at", "1", "--duration", "90000", in: folder)
        #expect(freeze.status == 1 && freeze.stderr.contains("a freeze frame lasts at most 24 hours"), "\(freeze.stderr)")
        #expect(bytes(folder.file("clip.slowpoke")) == before)
        // Within the limit, and then past the timeline's: 23 h 53 min twice over, slowed 32x.
        #expect(try slowpoke("insert-gap", "--at", "1", "--duration", "86000", in: folder).status == 0)
        #expect(try slowpoke("insert-gap", "--at", "1", "--duration", "86000", in: folder).status == 0)
        let long = try slowpoke("scale", "--range", "0-end", "--rate", "1/32", in: folder)
        #expect(long.status == 1 && long.stderr.contains("a timeline lasts at most 32 days"), "\(long.stderr)")
    }

    @Test func anOTIOGapOfAMillionYearsIsRefusedAtImport() throws {
        let folder = try TemporaryFolder("hostile")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        let clip = #"{"OTIO_SCHEMA": "Clip.1", "name": "c", "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": {"OTIO_SCHEMA": "RationalTime.1", "value": 0, "rate": 60}, "duration": {"OTIO_SCHEMA": "RationalTime.1", "value": 60, "rate": 60}}, "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "clip.mp4"}}"#
        let gap = #"{"OTIO_SCHEMA": "Gap.1", "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": {"OTIO_SCHEMA": "RationalTime.1", "value": 0, "rate": 1}, "duration": {"OTIO_SCHEMA": "RationalTime.1", "value": 1e12, "rate": 1}}}"#
        let otio = #"{"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V1", "children": [\#(clip), \#(gap), \#(clip)]}]}}"#
        try Data(otio.utf8).write(to: folder.file("t.otio"))
        let result = try slowpoke("otio", "import", "t.otio", in: folder)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(try folder.listing() == ["clip.mp4", "t.otio"])
    }

    @Test func aNamedPipeIsRefusedAtOnce() throws {
        let folder = try TemporaryFolder("hostile")
        #expect(mkfifo(folder.file("in.wav").path, 0o600) == 0)
        #expect(mkfifo(folder.file("r.json").path, 0o600) == 0)
        let start = Date()
        let stretch = try slowpoke("stretch", "in.wav", "out.wav", "--rate", "0.5", in: folder)
        #expect(stretch.status == 1 && stretch.stderr.contains("is a named pipe, not a regular file"), "\(stretch.stderr)")
        let open = try slowpoke("open", "in.wav", in: folder)
        #expect(open.status == 1)
        let batch = try slowpoke("batch", "r.json", in: folder)
        #expect(batch.status == 1 && batch.stderr.contains("is a named pipe"), "\(batch.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(try folder.listing() == ["in.wav", "r.json"])
    }
}
