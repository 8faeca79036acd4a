import Composition
import Project
import Interchange
import Foundation
import Testing
import TestSupport

/// CMX 3600 EDLs read by slowpoke itself (issue 42): the same timelines OTIO's adapter gives,
/// and the reverse at normal speed that the adapter plays forwards.
@Suite struct EDLTests {
    func native(_ edl: String, rate: String = "30") throws -> Composition {
        let timeline = try EDL.read(edl, frameRate: r(rate))
        let replayed = try OTIO.replay(timeline, on: Composition(asset: movie()))
        var composition = try Composition(asset: movie())
        for edit in replayed.edits { try edit.apply(to: &composition) }
        #expect(composition == replayed.composition)
        return composition
    }

    /// Through OTIO's CMX 3600 adapter (at 30 fps), then slowpoke's OTIO import.
    func adapted(_ edl: String) throws -> Composition {
        let folder = try TemporaryFolder("edl")
        try Data(edl.utf8).write(to: folder.file("cut.edl"))
        try OTIOPython.run("otio.adapters.write_to_file(otio.adapters.read_from_file(sys.argv[1], rate=30), sys.argv[2])",
                           [folder.file("cut.edl").path, folder.file("cut.otio").path])
        return try importOTIO(String(decoding: try Data(contentsOf: folder.file("cut.otio")), as: UTF8.self))
    }

    static let reverses = """
        TITLE: reverses
        FCM: NON-DROP FRAME

        001  clip     V     C        00:00:00:00 00:00:02:00 00:00:00:00 00:00:02:00
        * FROM CLIP NAME: clip.mp4
        002  clip     V     C        00:00:03:29 00:00:05:29 00:00:02:00 00:00:04:00
        M2   clip       -030.0                   00:00:03:29
        003  clip     V     C        00:00:04:00 00:00:05:00 00:00:04:15 00:00:06:15
        M2   clip       015.0                    00:00:04:00
        004  clip     V     C        00:00:07:29 00:00:08:29 00:00:06:15 00:00:08:15
        M2   clip       -015.0                   00:00:07:29

        """

    /// Issue 23's EDL (1x, 1/4 from an M2 of 7.5 fps, 1x) and an EDL of reverses at -1 and
    /// -1/2 with a gap: read natively they give the adapter's timelines, except the reverse at
    /// normal speed, which the adapter leaves forwards (its source and record lengths agree,
    /// so it ignores the M2 line) and slowpoke plays backwards from its source in.
    @Test func nativeReadingAgreesWithTheAdapterAndKeepsTheReverse() throws {
        #expect(try native(issueEDL) == (try adapted(issueEDL)))
        let ours = try native(Self.reverses)
        #expect(describe(ours.tracks[0]) == [
            "0-2 <- 0-2 @1",
            "2-4 <- 2-4 @1",          // frame 119 down to frame 60
            "4-4.5 <- gap",
            "4.5-6.5 <- 4-5 @1/2",
            "6.5-8.5 <- 7-8 @1/2",    // frame 239 down to 210, at half speed
        ])
        #expect(ours.tracks[0].segments.map(\.isReversed) == [false, true, false, false, true])
        let lines = Self.reverses.split(separator: "\n", omittingEmptySubsequences: false)
        // The adapter: events 1 and 2 give 2-4 forwards; events 1, 3 and 4 as slowpoke reads them.
        let forwards = try adapted(lines.prefix(7).joined(separator: "\n") + "\n")
        #expect(describe(forwards.tracks[0]) == ["0-2 <- 0-2 @1", "2-4 <- 119/30-179/30 @1"], "the adapter now keeps a -1x reverse: compare with it")
        let rest = (lines.prefix(5) + lines.dropFirst(7)).joined(separator: "\n")
        #expect(try adapted(rest) == (try native(rest)))
    }

    /// Drop-frame timecode at 29.97: 00:01:00;02 is frame 1800, 60.06 s.
    @Test func dropFrameTimecodesCountTheFramesTheyName() throws {
        let t = try EDL.read("""
            001  clip  V  C  00:00:00;00 00:01:00;02 00:00:00;00 00:01:00;02
            """, frameRate: r("30000/1001"))
        guard case .clip(let source, _)? = t.tracks.first?.items.first?.item else { Issue.record("no clip"); return }
        #expect(source.end == s("60.06"))
    }

    /// What slowpoke cannot read is refused, naming the line.
    @Test(arguments: [
        ("001  clip  V  D  030  00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00", "event 1 (line 1 of the EDL) is a dissolve"),
        ("001  clip  V  C  00:00:00:00 00:00:01:40 00:00:00:00 00:00:01:00", "line 1 of the EDL has 00:00:01:40 where a timecode"),
        ("M2   clip  -030.0  00:00:00:00", "line 1 of the EDL is an M2 line before any event"),
        ("TITLE: nothing", "the file has no CMX 3600 events"),
    ])
    func unreadableEDLsAreRefusedByLine(edl: String, message: String) throws {
        do {
            _ = try native(edl)
            Issue.record("read \(edl)")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
        }
    }
}
