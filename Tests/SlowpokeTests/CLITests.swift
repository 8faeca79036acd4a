import Foundation
import TestSupport
import Testing

/// Runs `slowpoke` in `folder`.
@discardableResult
func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
    try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
}

/// A folder holding one clip, `clip.mp4` (the 10 s 60 fps test clip), and its document.
func folderWithDocument() throws -> TemporaryFolder {
    let folder = try TemporaryFolder("cli")
    try folder.copy(media: "clip60.mp4", as: "clip.mp4")
    let opened = try slowpoke("open", "clip.mp4", in: folder)
    #expect(opened.status == 0, "\(opened.stderr)")
    return folder
}

func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite struct CLIWorkflowTests {
    /// The brief's commands, exactly as typed, in a folder with one clip.
    @Test func theCommandsWorkExactlyAsTyped() throws {
        let folder = try TemporaryFolder("cli")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        let open = try slowpoke("open", "clip.mp4", in: folder)
        #expect(open.status == 0)
        #expect(open.stdout.hasPrefix("created clip.slowpoke for clip.mp4: 10 s, video 1280x720 60 fps h264"))
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])

        let scale = try slowpoke("scale", "--range", "3.2-5.0", "--rate", "0.25", in: folder)
        #expect(scale.status == 0, "\(scale.stderr)")
        #expect(scale.stdout == "scale 3.2-5 to 7.2 s (0.25x); the timeline is now 15.4 s\n")

        let info = try slowpoke("info", in: folder)
        #expect(info.status == 0)
        let rows = info.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.contains("1 0 - 3.2 0 - 3.2 1x"))
        #expect(rows.contains("2 3.2 - 10.4 3.2 - 5 0.25x"))
        #expect(rows.contains("3 10.4 - 15.4 5 - 10 1x"))
        #expect(rows.contains("Total duration: 15.4 s"))
        #expect(info.stdout.contains("stream 0: video, h264 (High), 1280x720, yuv420p"))
        #expect(info.stdout.contains("600 frames"))
    }

    @Test func infoJSONDescribesEverySegment() throws {
        let folder = try folderWithDocument()
        try slowpoke("scale", "--range", "3.2-5.0", "--rate", "1/4", in: folder)
        let result = try slowpoke("info", "--json", in: folder)
        let info = try json(result.stdout)
        #expect(info["schemaVersion"] as? Int == 1)
        #expect(info["duration"] as? String == "15.4")
        let tracks = try #require(info["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["mediaType"] as? String } == ["video", "audio"])
        for track in tracks {
            let segments = try #require(track["segments"] as? [[String: Any]])
            let summary = segments.map { segment -> String in
                let target = segment["target"] as! [String: String], source = segment["source"] as! [String: String]
                return "\(target["start"]!)+\(target["duration"]!) <- \(source["start"]!)+\(source["duration"]!) @\(segment["rate"] as! String)"
            }
            #expect(summary == ["0+3.2 <- 0+3.2 @1", "3.2+7.2 <- 3.2+1.8 @0.25", "10.4+5 <- 5+5 @1"])
        }
        let streams = try #require((info["media"] as? [String: Any])?["streams"] as? [[String: Any]])
        #expect(streams.first?["frameCount"] as? Int == 600)
    }

    @Test func undoRedoAndHistory() throws {
        let folder = try folderWithDocument()
        try slowpoke("scale", "--range", "3.2-5.0", "--rate", "0.25", in: folder)
        try slowpoke("remove", "--range", "0-1", in: folder)
        try slowpoke("insert-gap", "--at", "end", "--duration", "2", in: folder)
        var history = try slowpoke("history", in: folder)
        #expect(history.stdout.contains("1.  scale 3.2-5 to 7.2 s (0.25x)"))
        #expect(history.stdout.contains("2.  remove 0-1"))
        #expect(history.stdout.contains("3.  insert a 2 s gap at 14.4 s"))

        let undo = try slowpoke("undo", in: folder)
        #expect(undo.stdout == "undid: insert a 2 s gap at 14.4 s; the timeline is now 14.4 s\n")
        try slowpoke("undo", in: folder)
        history = try slowpoke("history", in: folder)
        #expect(history.stdout.contains("2.  (undone) remove 0-1"))
        let redo = try slowpoke("redo", in: folder)
        #expect(redo.stdout == "redid: remove 0-1; the timeline is now 14.4 s\n")
        try slowpoke("undo", in: folder)
        try slowpoke("undo", in: folder)
        let info = try json(try slowpoke("info", "--json", in: folder).stdout)
        #expect(info["duration"] as? String == "10")
        let nothing = try slowpoke("undo", in: folder)
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "slowpoke: error: nothing to undo\n")
    }

    @Test func aMovieArgumentUsesOrCreatesItsDocument() throws {
        let folder = try TemporaryFolder("cli")
        try folder.copy(media: "clip60.mp4", as: "dog.mp4")
        let info = try slowpoke("info", "dog.mp4", in: folder)
        #expect(info.status == 0)
        #expect(try folder.listing() == ["dog.mp4", "dog.slowpoke"])
        try slowpoke("scale", "dog.mp4", "--range", "0-1", "--rate", "2", in: folder)
        // Opening again keeps the edits; --force starts over.
        let again = try slowpoke("open", "dog.mp4", in: folder)
        #expect(again.stderr.contains("dog.slowpoke already exists with 1 edit(s); keeping it"))
        #expect(try json(try slowpoke("info", "dog.slowpoke", "--json", in: folder).stdout)["duration"] as? String == "9.5")
        try slowpoke("open", "dog.mp4", "--force", in: folder)
        #expect(try json(try slowpoke("info", "--json", in: folder).stdout)["duration"] as? String == "10")
    }

    @Test func anAudioOnlyFileIsAOneTrackComposition() throws {
        let folder = try TemporaryFolder("cli")
        try folder.copy(media: "music.wav")
        #expect(try slowpoke("open", "music.wav", in: folder).status == 0)
        try slowpoke("scale", "--range", "1-2", "--rate", "1/3", in: folder)
        let info = try json(try slowpoke("info", "--json", in: folder).stdout)
        #expect((info["tracks"] as? [[String: Any]])?.map { $0["mediaType"] as? String } == ["audio"])
        #expect(info["duration"] as? String == "6")
    }

    @Test func helpTeaches() throws {
        let folder = try TemporaryFolder("cli")
        let help = try slowpoke("scale", "--help", in: folder)
        #expect(help.status == 0)
        for phrase in ["--range <range>", "--rate <rate>", "--duration <duration>", "slowpoke scale --range 3.2-5.0 --rate 0.25", "1/32 to 32"] {
            #expect(help.stdout.contains(phrase), "scale --help lacks \(phrase)")
        }
        let root = try slowpoke("--help", in: folder)
        for command in ["open", "info", "scale", "remove", "insert-gap", "undo", "redo", "history"] {
            #expect(root.stdout.contains("  \(command)"), "--help lacks \(command)")
        }
    }
}

/// Every bad input gets a clear message, a non-zero exit, and leaves the document as it was.
@Suite struct CLIErrorTests {
    func expectRefused(_ arguments: [String], message: String, status: Int32 = 1,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
        #expect(result.status == status, sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("slowpoke: error: \(message)"), "stderr was: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout == "", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before, "the document changed", sourceLocation: sourceLocation)
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"], sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("64", "rate 64 is outside the supported 0.03125 to 32\n"),
        ("1/64", "rate 0.015625 is outside the supported 0.03125 to 32\n"),
        ("0", "rate 0 would stop time; use a rate from 0.03125 (slowest) to 32 (fastest)\n"),
        ("-1", "rate -1 is negative; use a rate from 0.03125 to 32, and reverse the range to play it backwards\n"),
        ("-0.5", "rate -0.5 is negative; use a rate from 0.03125 to 32, and reverse the range to play it backwards\n"),
    ])
    func ratesOutsideTheRangeAreRefused(rate: String, message: String) throws {
        try expectRefused(["scale", "--range", "3.2-5.0", "--rate=\(rate)"], message: message)
    }

    @Test(arguments: ["nan", "NaN", "fast", "1/0", "0.25x"])
    func ratesThatAreNotNumbersAreRefused(rate: String) throws {
        try expectRefused(["scale", "--range", "3.2-5.0", "--rate=\(rate)"],
                          message: "The value '\(rate)' is invalid for '--rate <rate>'", status: 64)
    }

    @Test(arguments: [
        ("5.0-3.2", "range 5.0-3.2 ends before it starts\n"),
        ("3.2-3.2", "range 3.2-3.2 is empty; it starts and ends at 3.2 s\n"),
        ("3-12", "range 3-12 goes beyond the end of the timeline at 10 s\n"),
        ("9-end", nil),
    ] as [(String, String?)])
    func badRangesAreRefused(range: String, message: String?) throws {
        if let message {
            try expectRefused(["scale", "--range", range, "--rate", "0.5"], message: message)
            try expectRefused(["remove", "--range", range], message: message)
        } else {
            let folder = try folderWithDocument()
            #expect(try slowpoke("scale", "--range", range, "--rate", "0.5", in: folder).status == 0)
        }
    }

    @Test func scaleNeedsExactlyOneOfRateAndDuration() throws {
        try expectRefused(["scale", "--range", "1-2"], message: "give exactly one of --rate and --duration", status: 64)
        try expectRefused(["scale", "--range", "1-2", "--rate", "2", "--duration", "3"],
                          message: "give exactly one of --rate and --duration", status: 64)
        try expectRefused(["scale", "--range", "1-2", "--duration", "0"], message: "--duration must be positive, not 0 s\n")
        try expectRefused(["scale", "--range", "1-2", "--duration", "100"], message: "rate 0.01 is outside the supported 0.03125 to 32\n")
    }

    @Test func removingEverythingIsRefused() throws {
        try expectRefused(["remove", "--range", "0-end"], message: "range 0-10 is the whole timeline; removing it would leave nothing\n")
    }

    @Test func aCorruptDocumentIsReportedAndLeftAlone() throws {
        let folder = try folderWithDocument()
        let document = folder.file("clip.slowpoke")
        try Data("{\"format\": \"slowpoke\", \"version\": 1, \"movie\": 3}".utf8).write(to: document)
        let result = try slowpoke("scale", "--range", "1-2", "--rate", "2", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: clip.slowpoke is not a readable slowpoke document (wrong kind of value at movie); it was left unchanged\n")
        #expect(try Data(contentsOf: document) == Data("{\"format\": \"slowpoke\", \"version\": 1, \"movie\": 3}".utf8))
    }

    @Test func aMissingOrChangedMovieIsReported() throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        try FileManager.default.moveItem(at: folder.file("clip.mp4"), to: folder.file("elsewhere.mp4"))
        var result = try slowpoke("scale", "--range", "1-2", "--rate", "2", in: folder)
        #expect(result.stderr.hasPrefix("slowpoke: error: the movie clip.mp4 that clip.slowpoke refers to is missing"))
        // A different movie under the same name.
        try FileManager.default.copyItem(at: TestSupport.media("clip240.mp4"), to: folder.file("clip.mp4"))
        result = try slowpoke("info", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("slowpoke: error: the movie clip.mp4 has changed since clip.slowpoke was made (its size was"))
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }

    @Test func notAMovieLeavesNoDocument() throws {
        let folder = try TemporaryFolder("cli")
        try Data("shopping list\n".utf8).write(to: folder.file("notes.mp4"))
        let result = try slowpoke("open", "notes.mp4", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("notes.mp4 is not a movie or audio file that slowpoke can read"))
        #expect(try folder.listing() == ["notes.mp4"])

        try Data("1\n00:00:00,000 --> 00:00:01,000\nhi\n\n".utf8).write(to: folder.file("captions.srt"))
        let subtitles = try slowpoke("open", "captions.srt", in: folder)
        #expect(subtitles.stderr == "slowpoke: error: captions.srt has neither a video nor an audio track\n")
        #expect(try folder.listing() == ["captions.srt", "notes.mp4"])

        let missing = try slowpoke("open", "nowhere.mp4", in: folder)
        #expect(missing.stderr == "slowpoke: error: cannot open nowhere.mp4: no such file\n")
    }

    @Test func theDocumentMustBeFindable() throws {
        let folder = try TemporaryFolder("cli")
        let none = try slowpoke("info", in: folder)
        #expect(none.status == 1)
        #expect(none.stderr == "slowpoke: error: there is no slowpoke document in this folder; start one with `slowpoke open <movie>`, or name a document\n")
        try folder.copy(media: "clip60.mp4", as: "a.mp4")
        try folder.copy(media: "clip240.mp4", as: "b.mp4")
        try slowpoke("open", "a.mp4", in: folder)
        try slowpoke("open", "b.mp4", in: folder)
        let several = try slowpoke("scale", "--range", "0-1", "--rate", "2", in: folder)
        #expect(several.stderr == "slowpoke: error: this folder has several slowpoke documents (a.slowpoke, b.slowpoke); name the one to use\n")
        #expect(try slowpoke("scale", "b.slowpoke", "--range", "0-1", "--rate", "2", in: folder).status == 0)
    }

    /// Negative values reach the command as values, not as unknown options: a pitch shift
    /// down works without `=`, and a negative range or rate is refused for what it is; a range
    /// after the end says so.
    @Test func negativeValuesAndLateRangesGetTheirOwnMessages() throws {
        let folder = try folderWithDocument()
        let down = try slowpoke("export", "-o", "down.mp4", "--semitones", "-12", "--progress", "none", in: folder)
        #expect(down.status == 0, "\(down.stderr)")
        let range = try slowpoke("scale", "--range", "-1-2", "--rate", "0.5", in: folder)
        #expect(range.status != 0 && range.stderr.contains("time -1 is negative"), "\(range.stderr)")
        let rate = try slowpoke("scale", "--range", "1-2", "--rate", "-2", in: folder)
        #expect(rate.status != 0 && rate.stderr.contains("rate -2 is negative"), "\(rate.stderr)")
        let late = try slowpoke("scale", "--range", "1:02-end", "--rate", "0.5", in: folder)
        #expect(late.status != 0 && late.stderr.contains("range 1:02-end starts at 62 s, after the end of the timeline"), "\(late.stderr)")
    }

    /// With `--progress json`, every stderr line of an export is a JSON event: its warnings too.
    @Test func jsonProgressCarriesTheWarningsAsJSON() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("scale", "--range", "3.2-5.0", "--rate", "0.25", in: folder).status == 0)
        // --exact: the headline edit then leaves audio off the copied packets' grid, a warning.
        let export = try slowpoke("export", "--exact", "-o", "j.mp4", "--progress", "json", in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stderr.split(separator: "\n")
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!lines.isEmpty && events.count == lines.count, "\(export.stderr)")
        #expect(events.contains { $0["event"] as? String == "warning" && ($0["message"] as? String)?.contains("re-encoded") == true })
    }

    /// The summary names the profile the file has: ultrafast's Constrained Baseline, not the
    /// High it was allowed.
    @Test func theSummaryNamesTheWrittenProfile() throws {
        let folder = try folderWithDocument()
        let export = try slowpoke("export", "--fps", "30", "--preset", "ultrafast", "-o", "u.mp4", "--progress", "none", in: folder)
        #expect(export.status == 0 && export.stdout.contains("h264 constrained baseline level"), "\(export.stdout)")
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0",
                                                     folder.file("u.mp4").path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Constrained Baseline")
    }

    /// A command given a movie makes its document; refused, it leaves none behind.
    @Test func aRefusedEditOnAMovieLeavesNoDocument() throws {
        let folder = try TemporaryFolder("refused")
        try folder.copy(media: "clip60.mp4", as: "c.mp4")
        let refused = try slowpoke("slomo", "c.mp4", in: folder)
        #expect(refused.status != 0 && refused.stderr.contains("not a high-frame-rate clip"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("c.slowpoke").path))
        let bad = try slowpoke("scale", "c.mp4", "--range", "1-99", "--rate", "0.5", in: folder)
        #expect(bad.status != 0 && !FileManager.default.fileExists(atPath: folder.file("c.slowpoke").path))
        #expect(try slowpoke("scale", "c.mp4", "--range", "1-2", "--rate", "0.5", in: folder).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.file("c.slowpoke").path))
    }
}
