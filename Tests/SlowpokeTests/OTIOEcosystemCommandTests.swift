import Foundation
import TestSupport
import Testing

/// `slowpoke otio` against the real OpenTimelineIO library and its CMX 3600 EDL adapter (see
/// `OTIOPython`): what `otio export` writes, OTIO reads as slowpoke plays it; what OTIO's EDL
/// adapter gives, `otio import --movie` reads at the EDL's rates.
@Suite struct OTIOEcosystemCommandTests {
    /// The demo (3.2-5.0 s of the 10 s clip at 0.25x): OTIO computes 15.4 s, places the clips
    /// at 0, 3.2 and 10.4 s, and its EDL adapter writes record times 00:00:03:06-00:00:10:12
    /// for the slowed event at 30 fps, with an M2 line of 7.5 fps.
    @Test func otioReadsTheExportedDemoAs15Point4Seconds() throws {
        let folder = try folderWithDocument()
        try slowpoke("scale", "--range", "3.2-5.0", "--rate", "0.25", in: folder)
        let exported = try slowpoke("otio", "export", "-o", "demo.otio", in: folder)
        #expect(exported.status == 0, "\(exported.stderr)")
        let out = try OTIOPython.run("""
            tl = otio.adapters.read_from_file(sys.argv[1])
            print(tl.duration().to_seconds())
            for c in tl.tracks[0]:
                r = c.range_in_parent()
                print(r.start_time.to_seconds(), r.duration.to_seconds(), c.source_range.start_time.to_seconds(),
                      [e.time_scalar for e in c.effects])
            print(otio.adapters.write_to_string(tl, "cmx_3600", rate=30), end="")
            """, [folder.file("demo.otio").path])
        let lines = out.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(4)) == ["15.4", "0.0 3.2 0.0 []", "3.2 7.2 3.2 [0.25]", "10.4 5.0 5.0 []"], "\(out)")
        let events = lines.map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }
            .filter { $0.count == 8 && $0[2] == "V" }
        #expect(events.map { "\($0[6])-\($0[7])" } == ["00:00:00:00-00:00:03:06", "00:00:03:06-00:00:10:12", "00:00:10:12-00:00:15:12"], "\(out)")
        #expect(lines.contains { $0.hasPrefix("M2") && $0.contains("7.5") && $0.hasSuffix("00:00:03:06") }, "\(out)")
    }

    /// Issue 23's EDL, converted by OTIO's adapter, imports with --movie at 1x, 0.25x, 1x; without
    /// --movie, or with a movie the clips do not name, the error says what to do.
    @Test func anEDLConvertedByOTIOImportsWithItsRates() throws {
        let folder = try TemporaryFolder("otio-edl")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        let edl = """
            001  clip     V     C        00:00:00:00 00:00:03:06 00:00:00:00 00:00:03:06
            002  clip     V     C        00:00:03:06 00:00:05:00 00:00:03:06 00:00:10:12
            M2   clip       007.5                    00:00:03:06
            003  clip     V     C        00:00:05:00 00:00:10:00 00:00:10:12 00:00:15:12

            """
        try Data(edl.utf8).write(to: folder.file("cut.edl"))
        try OTIOPython.run("otio.adapters.write_to_file(otio.adapters.read_from_file(sys.argv[1], rate=30), sys.argv[2])",
                           [folder.file("cut.edl").path, folder.file("cut.otio").path])

        let unbound = try slowpoke("otio", "import", "cut.otio", "-o", "cut.slowpoke", in: folder)
        #expect(unbound.status == 1)
        #expect(unbound.stderr == "slowpoke: error: cut.otio: clip \"001\" (item 1 of Video track \"V\") has no linked media (a MissingReference, as EDL and AAF imports give); name the movie it plays with --movie\n")

        let imported = try slowpoke("otio", "import", "cut.otio", "--movie", "clip.mp4", "-o", "cut.slowpoke", in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")
        let info = try json(slowpoke("info", "cut.slowpoke", "--json", in: folder).stdout)
        #expect(info["duration"] as? String == "15.4")
        for track in try #require(info["tracks"] as? [[String: Any]]) {
            let segments = try #require(track["segments"] as? [[String: Any]])
            let rows = segments.map { s -> String in
                let target = s["target"] as? [String: String] ?? [:]
                let source = s["source"] as? [String: String] ?? [:]
                return "\(target["start"] ?? "?")+\(target["duration"] ?? "?") \(source["start"] ?? "?")+\(source["duration"] ?? "?") \(s["rate"] as? String ?? "?")"
            }
            #expect(rows == ["0+3.2 0+3.2 1", "3.2+7.2 3.2+1.8 0.25", "10.4+5 5+5 1"])
        }

        // The demo's own export names clip.mp4: another movie given with --movie is refused.
        try folder.copy(media: "clip60.mp4", as: "other.mp4")
        #expect(try slowpoke("otio", "export", "cut.slowpoke", "-o", "named.otio", in: folder).status == 0)
        let wrong = try slowpoke("otio", "import", "named.otio", "--movie", "other.mp4", "-o", "o.slowpoke", in: folder)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.hasPrefix("slowpoke: error: named.otio: clip \"clip.mp4 1\" (item 1 of Video track \"V1\") refers to clip.mp4 (file://"), "\(wrong.stderr)")
        #expect(wrong.stderr.hasSuffix("not other.mp4; a slowpoke document plays one movie, so import a timeline whose clips all play other.mp4, or name that movie instead\n"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("o.slowpoke").path))
    }
}
