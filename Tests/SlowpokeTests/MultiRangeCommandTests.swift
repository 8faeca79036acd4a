import Foundation
import TestSupport
import Testing

/// Several ranges in one edit (`--range 1-2 --range 5-6`, `--range 1-2,5-6`): one edit in the
/// history, one undo, the timeline every range gives, and an export that long; an option that
/// takes one value given twice is refused, naming it.
@Suite struct MultiRangeCommandTests {
    private func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    private func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
        try slowpoke(arguments, in: folder)
    }

    /// (start, duration, rate) of the video track's segments, from `info --json`.
    private func segments(in folder: TemporaryFolder) throws -> [String] {
        let info = try slowpoke("info", "--json", in: folder)
        #expect(info.status == 0, "\(info.stderr)")
        let tracks = try #require(try json(info.stdout)["tracks"] as? [[String: Any]])
        let video = try #require(tracks.first { $0["mediaType"] as? String == "video" })
        return try #require(video["segments"] as? [[String: Any]]).map { segment in
            let target = segment["target"] as? [String: Any] ?? [:]
            let source = segment["source"] as? [String: Any] ?? [:]
            return "\(target["start"] ?? "?")+\(target["duration"] ?? "?")<\(source["start"] ?? "-")@\(segment["rate"] ?? "hold")"
        }
    }

    private func historyLines(in folder: TemporaryFolder) throws -> [Substring] {
        try slowpoke("history", in: folder).stdout.split(separator: "\n")
    }

    private func exportedSeconds(in folder: TemporaryFolder) throws -> Double {
        let export = try slowpoke("export", "-o", "out.mp4", "--progress", "none", "--force", in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let probe = try TestSupport.ffprobe(folder.file("out.mp4"), ["-show_entries", "format=duration"])
        return Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? -1
    }

    @Test(arguments: [["--range", "1-2", "--range", "5-6"], ["--range", "1-2,5-6"], ["--range", "5-6", "--range", "1-2"]])
    func scaleAppliesEveryRangeAsOneEdit(_ ranges: [String]) throws {
        let folder = try folderWithDocument()
        let original = try segments(in: folder)
        let scaled = try slowpoke(["scale"] + ranges + ["--rate", "0.5"], in: folder)
        #expect(scaled.status == 0, "\(scaled.stderr)")
        #expect(scaled.stdout == "scale 1-2 to 2 s (0.5x) and scale 5-6 to 2 s (0.5x); the timeline is now 12 s\n", "\(scaled.stdout)")
        #expect(try segments(in: folder) == ["0+1<0@1", "1+2<1@0.5", "3+3<2@1", "6+2<5@0.5", "8+4<6@1"])
        #expect(try historyLines(in: folder).count == 1)
        let seconds = try exportedSeconds(in: folder)
        #expect(abs(seconds - 12) < 0.05, "exported \(seconds) s")
        // One undo takes both ranges back; redo brings both.
        #expect(try slowpoke("undo", in: folder).stdout.hasSuffix("the timeline is now 10 s\n"))
        #expect(try segments(in: folder) == original)
        #expect(try slowpoke("redo", in: folder).status == 0)
        #expect(try segments(in: folder).count == 5)
        #expect(try slowpoke("verify", in: folder).status == 0)
    }

    @Test func removeReverseAndRampTakeSeveralRanges() throws {
        let folder = try folderWithDocument()
        let removed = try slowpoke("remove", "--range", "0-1,9-end", in: folder)
        #expect(removed.stdout == "remove 0-1 and remove 9-10; the timeline is now 8 s\n", "\(removed.stdout)\(removed.stderr)")
        #expect(try segments(in: folder) == ["0+8<1@1"])
        let seconds = try exportedSeconds(in: folder)
        #expect(abs(seconds - 8) < 0.05, "exported \(seconds) s")

        #expect(try slowpoke("reverse", "--range", "1-2", "--range", "4-5", in: folder).status == 0)
        #expect(try segments(in: folder) == ["0+1<1@1", "1+1<2@-1", "2+2<3@1", "4+1<5@-1", "5+3<6@1"])
        let ramped = try slowpoke("ramp", "--range", "6-7,0-1", "--from", "1", "--to", "0.5", "--steps", "4", in: folder)
        #expect(ramped.status == 0, "\(ramped.stderr)")
        #expect(try segments(in: folder).count == 5 + 3 + 5)  // 0-1 in 4 steps; 5-8 as 5-6, 4 steps, 7-8
        #expect(try historyLines(in: folder).count == 3)
        #expect(try slowpoke("verify", in: folder).status == 0)
        for _ in 0..<3 { #expect(try slowpoke("undo", in: folder).status == 0) }
        #expect(try segments(in: folder) == ["0+10<0@1"])
    }

    @Test func overlappingOrUnsuitableRangesAreRefusedAndChangeNothing() throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let overlap = try slowpoke("scale", "--range", "1-3,2-4", "--rate", "0.5", in: folder)
        #expect(overlap.status == 1)
        #expect(overlap.stderr == "slowpoke: error: ranges 1-3 and 2-4 overlap; give ranges apart (ones that meet, like 1-2 and 2-3, are fine)\n", "\(overlap.stderr)")
        let all = try slowpoke("remove", "--range", "0-5,5-end", in: folder)
        #expect(all.status == 1 && all.stderr.contains("cover the whole timeline"), "\(all.stderr)")
        let duration = try slowpoke("scale", "--range", "1-2,5-6", "--duration", "3", in: folder)
        #expect(duration.status == 64 && duration.stderr.contains("scale several ranges with --rate"), "\(duration.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }

    @Test(arguments: [
        (["scale", "--range", "1-2", "--rate", "0.5", "--rate", "2"], "slowpoke scale was given --rate twice; it takes one value (several ranges go in --range, which may be given again)"),
        (["scale", "--range", "1-2", "--duration", "3", "--duration=4"], "slowpoke scale was given --duration twice"),
        (["ramp", "--range", "1-2", "--from", "1", "--from", "2", "--to", "1"], "slowpoke ramp was given --from twice"),
        (["export", "-o", "a.mp4", "--output", "b.mp4"], "slowpoke export was given both -o and --output, which are one option; give one"),
        (["export", "--fps", "30", "--fps", "24"], "slowpoke export was given --fps twice; it takes one value\n"),
        (["scale", "--range", "3.2-5", "-r", "0.25"], "slowpoke scale has no option '-r'; did you mean '--range' or '--rate'?"),
        (["export", "-x"], "slowpoke export has no option '-x'"),
    ])
    func optionsGivenTwiceOrUnknownAreNamed(_ arguments: [String], _ said: String) throws {
        let folder = try folderWithDocument()
        let result = try slowpoke(arguments, in: folder)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("slowpoke: error: " + said), "\(result.stderr)")
    }

    @Test func valuesThatLookLikeOptionsAreNotOptions() throws {
        let folder = try folderWithDocument()
        // A negative number after an option is its value, not an unknown `-3`.
        let result = try slowpoke("export", "--semitones", "-3", "--dry-run", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
