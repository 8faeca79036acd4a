import Composition
import Project
import Interchange
import Foundation
import Testing
import TestSupport

/// The demo timeline: 3.2-5.0 s of the 10 s movie at quarter speed (15.4 s).
func demoComposition() throws -> Composition {
    var c = try Composition(asset: movie())
    try Edit.scale(range: range("3.2", "5"), rate: r("1/4")).apply(to: &c)
    return c
}

/// The EDL of issue 23: the middle event plays 1.8 s of source over 7.2 s (M2 at 7.5 fps of 30).
let issueEDL = """
    001  clip     V     C        00:00:00:00 00:00:03:06 00:00:00:00 00:00:03:06
    002  clip     V     C        00:00:03:06 00:00:05:00 00:00:03:06 00:00:10:12
    M2   clip       007.5                    00:00:03:06
    003  clip     V     C        00:00:05:00 00:00:10:00 00:00:10:12 00:00:15:12

    """

/// What the real OpenTimelineIO library (see `OTIOPython`) makes of slowpoke's files, and what
/// slowpoke makes of the files OTIO's EDL adapter writes.
@Suite struct OTIOEcosystemTests {
    /// OTIO's `Timeline.duration()`, `Track.duration()` and each item's `range_in_parent()` agree
    /// with slowpoke's segments, for the demo and for random timelines (cuts, gaps, rates from
    /// 1/32 to 32, five media grids); a warped clip consumes `duration × time_scalar` of media.
    @Test func theRealLibraryLaysOutEveryClipWhereSlowpokePlaysIt() throws {
        let folder = try TemporaryFolder("otio-layout")
        var compositions = [try demoComposition()]
        var extra = try demoComposition()
        try Edit.insertGap(range: range("1", "4/3")).apply(to: &extra)
        try Edit.scale(range: range("12", "13"), rate: r("1/3")).apply(to: &extra)
        compositions.append(extra)
        for seed in UInt64(1)...40 { compositions.append(randomComposition(seed: seed, edits: Int(seed % 8))) }
        var files: [String] = []
        var exported: [Composition] = []
        for composition in compositions {
            guard let text = try? OTIO.export(composition, movie: otioMovie) else { continue }
            let file = folder.file("\(files.count).otio")
            try Data(text.utf8).write(to: file)
            files.append(file.path)
            exported.append(composition)
        }
        #expect(exported.count >= 35)
        let layouts = try #require(try JSONSerialization.jsonObject(with: Data(OTIOPython.run(OTIOPython.layoutScript, files).utf8)) as? [[String: Any]])
        #expect(layouts.count == exported.count)
        // The demo, exactly as the issue asks: 15.4 s, the slowed clip 3.2 s + 7.2 s at 0.25.
        #expect(layouts.first?["duration"] as? Double == 15.4)
        func close(_ a: Any?, _ b: Double, _ what: String) {
            let x = (a as? NSNumber)?.doubleValue ?? .nan
            #expect(abs(x - b) <= 1e-6 * max(1, abs(b)), "\(what): OTIO says \(x), slowpoke \(b)")
        }
        for (number, (layout, composition)) in zip(layouts, exported).enumerated() {
            close(layout["duration"], composition.duration.seconds, "timeline \(number) duration")
            let tracks = layout["tracks"] as? [[String: Any]] ?? []
            #expect(tracks.count == composition.tracks.count)
            for (track, ours) in zip(tracks, composition.tracks) {
                close(track["duration"], ours.duration.seconds, "timeline \(number) track duration")
                let items = track["items"] as? [[String: Any]] ?? []
                #expect(items.count == ours.segments.count)
                for (index, (item, segment)) in zip(items, ours.segments).enumerated() {
                    let what = "timeline \(number) item \(index + 1)"
                    close(item["start"], segment.target.start.seconds, "\(what) range_in_parent start")
                    close(item["duration"], segment.target.duration.seconds, "\(what) range_in_parent duration")
                    let scalars = (item["scalars"] as? [NSNumber] ?? []).map(\.doubleValue)
                    if let source = segment.source, let rate = segment.rate {
                        #expect(item["kind"] as? String == "Clip", "\(what)")
                        close(item["source_start"], source.start.seconds, "\(what) source start")
                        #expect(scalars == (rate == .one ? [] : [rate.doubleValue]), "\(what)")
                        close(segment.target.duration.seconds * (scalars.first ?? 1), source.duration.seconds, "\(what) media consumed")
                    } else {
                        #expect(item["kind"] as? String == "Gap", "\(what)")
                    }
                }
            }
        }
    }

    /// OTIO's CMX 3600 adapter writes the demo as three events whose record times are the
    /// segments' (the slowed event ends at 10.4 s, 00:00:10:12 at 30 fps) with an M2 line of
    /// 7.5 fps; read back by the same adapter, slowpoke imports the very same timeline.
    @Test func theEDLAdapterWritesTheRecordTimesAndReadsBackTheSameTimeline() throws {
        let folder = try TemporaryFolder("otio-edl")
        try Data(OTIO.export(try demoComposition(), movie: otioMovie).utf8).write(to: folder.file("demo.otio"))
        let edl = try OTIOPython.run("""
            tl = otio.adapters.read_from_file(sys.argv[1])
            print(otio.adapters.write_to_string(tl, "cmx_3600", rate=30), end="")
            """, [folder.file("demo.otio").path])
        let lines = edl.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }
        let events = lines.filter { $0.count == 8 && $0[2] == "V" }
        // Source in, record in, record out. (The adapter's writer computes a warped event's
        // source out as in + duration / time_scalar, 00:01:00:24 here, instead of
        // in + duration × time_scalar; its reader ignores that field when an M2 line is present.)
        #expect(events.map { [$0[4], $0[6], $0[7]] } == [
            ["00:00:00:00", "00:00:00:00", "00:00:03:06"],
            ["00:00:03:06", "00:00:03:06", "00:00:10:12"],
            ["00:00:05:00", "00:00:10:12", "00:00:15:12"],
        ], "\(edl)")
        #expect(events.map { $0[5] }.first == "00:00:03:06")
        #expect(events.map { $0[5] }.last == "00:00:10:00")
        let speeds = lines.filter { $0.first == "M2" }
        #expect(speeds.count == 1)
        #expect(speeds.first.map { [$0[$0.count - 2], $0[$0.count - 1]] } == ["7.5", "00:00:03:06"])

        let back = try importEDL(edl)
        #expect(back == (try demoComposition()))
    }

    /// Issue 23's EDL, converted by OTIO's CMX 3600 adapter, imports at its rates: 1x, 1/4, 1x.
    @Test func theIssuesEDLImportsWithTheRightRates() throws {
        let c = try importEDL(issueEDL)
        for track in c.tracks {
            #expect(describe(track) == ["0-3.2 <- 0-3.2 @1", "3.2-10.4 <- 3.2-5 @1/4", "10.4-15.4 <- 5-10 @1"])
        }
        #expect(c.duration == s("15.4"))
    }

    /// The EDL as OTIO JSON (converted at 30 fps by the real adapter), bound to the test movie
    /// (its clips have MissingReferences) and replayed.
    func importEDL(_ edl: String) throws -> Composition {
        let folder = try TemporaryFolder("otio-edl")
        try Data(edl.utf8).write(to: folder.file("cut.edl"))
        try OTIOPython.run("""
            tl = otio.adapters.read_from_file(sys.argv[1], rate=30)
            otio.adapters.write_to_file(tl, sys.argv[2])
            """, [folder.file("cut.edl").path, folder.file("cut.otio").path])
        let timeline = try OTIO.read(Data(contentsOf: folder.file("cut.otio")))
        let movieURL = URL(fileURLWithPath: "/media/clip.mp4")
        #expect(try timeline.movie(given: movieURL, relativeTo: folder.url) == movieURL)
        return try importOTIO(String(decoding: try Data(contentsOf: folder.file("cut.otio")), as: UTF8.self))
    }

    /// A clip with a MissingReference, or a reference to a file of the movie's name anywhere,
    /// plays `--movie`; one naming another file is refused by name; without `--movie`, an
    /// unlinked clip says to give one.
    @Test func clipsAreBoundToTheGivenMovieByReference() throws {
        func timeline(_ reference: String) throws -> OTIOTimeline {
            try OTIO.read(Data(handWritten(items: """
                {"OTIO_SCHEMA": "Clip.2", "name": "shot",
                 "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": \(rt(0)), "duration": \(rt(24))},
                 "media_references": {"DEFAULT_MEDIA": \(reference)}, "active_media_reference_key": "DEFAULT_MEDIA"}
                """).utf8))
        }
        let missing = try timeline("{\"OTIO_SCHEMA\": \"MissingReference.1\", \"name\": \"\", \"metadata\": {}}")
        let elsewhere = try timeline("{\"OTIO_SCHEMA\": \"ExternalReference.1\", \"target_url\": \"file:///old/disk/clip.mp4\"}")
        let other = try timeline("{\"OTIO_SCHEMA\": \"ExternalReference.1\", \"target_url\": \"file:///old/disk/other%20take.mov\"}")
        let movie = URL(fileURLWithPath: "/new/clip.mp4")
        let folder = URL(fileURLWithPath: "/cuts")
        #expect(try missing.movie(given: movie, relativeTo: folder) == movie)
        #expect(try elsewhere.movie(given: movie, relativeTo: folder) == movie)
        #expect(try elsewhere.movie(given: nil, relativeTo: folder) == URL(fileURLWithPath: "/old/disk/clip.mp4"))
        #expect(throws: OTIOError.unsupported("clip \"shot\" (item 1 of Video track \"V1\") refers to other take.mov (file:///old/disk/other%20take.mov), not clip.mp4; a slowpoke document plays one movie, so import a timeline whose clips all play clip.mp4, or name that movie instead")) {
            try other.movie(given: movie, relativeTo: folder)
        }
        #expect(throws: OTIOError.unbound("clip \"shot\" (item 1 of Video track \"V1\") has no linked media (a MissingReference, as EDL and AAF imports give)")) {
            try missing.movie(given: nil, relativeTo: folder)
        }
        // A generator (an EDL's BL or BARS event) is no movie at all.
        #expect(throws: OTIOError.self) {
            try timeline("{\"OTIO_SCHEMA\": \"GeneratorReference.1\", \"generator_kind\": \"black\"}")
        }
    }

    /// Files slowpoke wrote before it followed OTIO's convention (timeline metadata version 1:
    /// `source_range.duration` was the media span) still import as they were meant.
    @Test func versionOneFilesStillImportAsWritten() throws {
        let v2 = try OTIO.export(try demoComposition(), movie: otioMovie)
        var root = try jsonObject(v2)
        root["metadata"] = ["slowpoke": ["version": 1]]
        // Rewrite every clip's duration as its media span, as version 1 did.
        func legacy(_ value: Any) -> Any {
            guard var object = value as? [String: Any] else { return (value as? [Any])?.map(legacy) ?? value }
            if object["OTIO_SCHEMA"] as? String == "Clip.2", var range = object["source_range"] as? [String: Any],
               let exact = (object["metadata"] as? [String: Any])?["slowpoke"] as? [String: Any],
               let span = exact["source_duration"] as? String, let seconds = Double(span) {
                range["duration"] = ["OTIO_SCHEMA": "RationalTime.1", "rate": 60.0, "value": seconds * 60]
                object["source_range"] = range
                if exact["rate"] as? String != "1" {
                    object["effects"] = [["OTIO_SCHEMA": "LinearTimeWarp.1", "effect_name": "LinearTimeWarp", "time_scalar": 0.25]]
                }
                return object
            }
            for (key, child) in object { object[key] = legacy(child) }
            return object
        }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: legacy(root)), as: UTF8.self)
        #expect(try importOTIO(text) == (try demoComposition()))
        // The same file without its version reads as OTIO does: the 1.8 s clip consumes 0.45 s.
        let unversioned = text.replacingOccurrences(of: "\"version\":1", with: "\"version\":3")
        #expect(describe(try importOTIO(unversioned).tracks[0]) == ["0-3.2 <- 0-3.2 @1", "3.2-5 <- 3.2-3.65 @1/4", "5-10 <- 5-10 @1"])
        // Only version 1 itself is version 1: 1.5 is not (it was read as its integer part).
        let fractional = text.replacingOccurrences(of: "\"version\":1", with: "\"version\":1.5")
        #expect(fractional != text)
        #expect(describe(try importOTIO(fractional).tracks[0]) == ["0-3.2 <- 0-3.2 @1", "3.2-5 <- 3.2-3.65 @1/4", "5-10 <- 5-10 @1"])
    }
}
