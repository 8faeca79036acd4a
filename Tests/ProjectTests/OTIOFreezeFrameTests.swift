import Composition
import Foundation
import Project
import Interchange
import Testing
import TestSupport

/// Freeze frames and the real OpenTimelineIO library (see `OTIOPython`): what OTIO makes of
/// slowpoke's holds, and what slowpoke makes of the FreezeFrame clips OTIO writes.
@Suite struct OTIOFreezeFrameTests {
    /// 10 s movie; the frame at 2 s held for 1.5 s; 5-6 s at 1/2 (so 6.5-8.5 after the hold).
    static func frozen() throws -> Composition {
        var c = try Composition(asset: movie())
        try Edit.freeze(range: range("2", "3.5")).apply(to: &c)
        try Edit.scale(range: range("6.5", "7.5"), rate: r("1/2")).apply(to: &c)
        return c
    }

    @Test func theRealLibraryReadsAHoldAsAFreezeFrameClip() throws {
        let folder = try TemporaryFolder("otio-freeze")
        let file = folder.file("frozen.otio")
        try Data(OTIO.export(try Self.frozen(), movie: otioMovie).utf8).write(to: file)
        let script = """
            tl = otio.adapters.read_from_file(sys.argv[1])
            out = {"duration": tl.duration().to_seconds(), "tracks": []}
            for track in tl.tracks:
                items = []
                for item in track:
                    placed = item.range_in_parent()
                    items.append({"start": placed.start_time.to_seconds(), "duration": placed.duration.to_seconds(),
                                  "source_start": item.source_range.start_time.to_seconds(),
                                  "freeze": any(isinstance(e, otio.schema.FreezeFrame) for e in item.effects),
                                  "scalars": [e.time_scalar for e in item.effects if isinstance(e, otio.schema.LinearTimeWarp)]})
                out["tracks"].append({"kind": track.kind, "items": items})
            print(json.dumps(out))
            """
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(OTIOPython.run(script, [file.path]).utf8)) as? [String: Any])
        #expect(layout["duration"] as? Double == 12.5)
        let tracks = layout["tracks"] as? [[String: Any]] ?? []
        #expect(tracks.count == 2)
        var freezes = 0
        for track in tracks {
            let items = track["items"] as? [[String: Any]] ?? []
            let held = items.filter { $0["freeze"] as? Bool == true }
            if track["kind"] as? String == "Video" {
                #expect(items.count == 5)
                try #require(held.count == 1)
                #expect(held[0]["start"] as? Double == 2 && held[0]["duration"] as? Double == 1.5 && held[0]["source_start"] as? Double == 2)
                // FreezeFrame is a LinearTimeWarp of scalar 0 to OTIO.
                #expect(held[0]["scalars"] as? [Double] == [0])
                freezes += held.count
            } else {
                #expect(held.isEmpty, "the audio track has a gap there")
            }
        }
        #expect(freezes == 1)
    }

    /// A timeline made with OTIO's own classes: clip 0-2 s, `FreezeFrame()` on a clip starting
    /// at 2 s lasting 1.5 s in the track, then 2-10 s. slowpoke imports it as the freeze edit.
    @Test func aFreezeFrameMadeByTheRealLibraryImportsAsTheFreezeEdit() throws {
        let folder = try TemporaryFolder("otio-freeze")
        let file = folder.file("made.otio")
        let script = """
            RT = otio.opentime.RationalTime
            TR = otio.opentime.TimeRange
            def clip(name, start, frames, effects=()):
                ref = otio.schema.ExternalReference(target_url="file:///media/clip.mp4", available_range=TR(RT(0, 60), RT(600, 60)))
                c = otio.schema.Clip(name=name, media_reference=ref, source_range=TR(RT(start, 60), RT(frames, 60)))
                for e in effects: c.effects.append(e)
                return c
            tl = otio.schema.Timeline(name="made")
            track = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
            track.append(clip("a", 0, 120))
            track.append(clip("held", 120, 90, [otio.schema.FreezeFrame()]))
            track.append(clip("rest", 120, 480))
            tl.tracks.append(track)
            otio.adapters.write_to_file(tl, sys.argv[1])
            print(tl.duration().to_seconds())
            """
        #expect(try OTIOPython.run(script, [file.path]) == "11.5\n")
        let imported = try importOTIO(String(decoding: try Data(contentsOf: file), as: UTF8.self))
        var expected = try Composition(asset: movie())
        try Edit.freeze(range: range("2", "3.5")).apply(to: &expected)
        #expect(imported == expected)
    }
}
