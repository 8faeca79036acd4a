import Foundation
import TestSupport
import Testing

/// Nothing of a movie is dropped without a word: streams the export does not carry are named
/// before any work, and a codec the chosen container cannot hold is refused before any work,
/// naming the containers that can (issue 21, items 4 and 5).
@Suite struct StreamCoverageTests {
    /// Every stream's fate is said before any work, in both exports, and `info` lists it: a
    /// QuickTime timecode track, once left out with a warning, is now written anew from the
    /// timeline's first frame (TimecodeTests), so no warning names it (streams left out are
    /// named as EveryStreamTests checks with an attachment in mp4).
    @Test func streamsLeftOutAreNamed() throws {
        let folder = try TemporaryFolder("streams")
        let movie = folder.file("tc.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3",
                                                   "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:v", "libx264", "-c:a", "aac",
                                                   "-timecode", "01:00:00:00", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("tc.slowpoke").path
        for extra in [[String](), ["--fps", "30"]] {
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--force", "--progress", "none",
                                                                     "-o", folder.file("out.mov").path] + extra)
            #expect(export.status == 0, "\(export.stderr)")
            #expect(!export.stderr.contains("is not in the export"), "\(export.stderr)")
        }
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document])
        #expect(info.stdout.contains("Export (passthrough, to .mov"), "\(info.stdout)")
        for row in ["stream 0   video   copied    every kept frame copied", "stream 1   audio   copied    copied: the timeline leaves it untouched",
                    "stream 2   data    retimed   the timecode, moved to the timeline's first frame, as a timecode track of its own"] {
            #expect(info.stdout.contains(row), "\(row) in \(info.stdout)")
        }
        let json = try TestSupport.run(TestSupport.slowpoke, ["info", document, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let streams = (object?["export"] as? [String: Any])?["streams"] as? [[String: Any]] ?? []
        #expect(streams.map { $0["fate"] as? String } == ["copied", "copied", "retimed"], "\(json.stdout)")
    }

    @Test func aCodecTheContainerCannotHoldIsRefusedFirst() throws {
        let folder = try TemporaryFolder("prores")
        let movie = folder.file("pr.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                                   "-c:v", "prores_ks", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("pr.slowpoke").path
        let refused = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("pr.mp4").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(".mp4 cannot hold pr.mov's prores video (export to .mov or .mkv, or with --fps to re-encode it)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("pr.mp4").path))
        #expect(try folder.listing().allSatisfy { !$0.hasPrefix(".") }, "no temporary file is left")
        let mov = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("out.mov").path])
        #expect(mov.status == 0, "\(mov.stderr)")
    }
}
