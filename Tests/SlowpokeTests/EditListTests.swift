import Foundation
import TestSupport
import Testing

/// A movie trimmed without re-encoding carries an edit list hiding the frames before its
/// in-point (ffmpeg's `-ss 1.3 -c copy`, phone and QuickTime trims). slowpoke plays what every
/// player shows: 8.7 s and 261 frames, never the hidden 0.3 s (issue 20, defect 8).
@Suite struct EditListTests {
    func frameMD5s(_ file: URL) throws -> [String] {
        let (md5s, errors) = try TestSupport.frameMD5s(file)
        #expect(errors.isEmpty, "\(errors)")
        return md5s
    }

    @Test func hiddenFramesAreNeverShown() throws {
        let folder = try TemporaryFolder("editlist")
        let source = folder.file("src.mp4"), trim = folder.file("trim.mp4")
        var made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=10", "-c:v", "libx264",
                                                   "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        made = try TestSupport.tool("ffmpeg", ["-v", "error", "-ss", "1.3", "-i", source.path, "-c", "copy", trim.path])
        try #require(made.status == 0, "\(made.stderr)")
        let shown = try frameMD5s(trim)
        try #require(shown.count == 261, "ffmpeg shows \(shown.count) frames of the trim")

        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", trim.path])
        #expect(opened.stdout.contains("8.7 s"), "\(opened.stdout)")
        let document = folder.file("trim.slowpoke").path
        // mp4 keeps the hidden frames as references behind an edit list of its own: the very
        // frames every player shows, no more.
        let mp4 = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("out.mp4").path])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(try frameMD5s(folder.file("out.mp4")) == shown)
        // mkv cannot hide frames: it starts at the next keyframe, and says so.
        let mkv = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("out.mkv").path])
        #expect(mkv.status == 0 && mkv.stderr.contains("edit list"), "\(mkv.stderr)")
        let mkvFrames = try frameMD5s(folder.file("out.mkv"))
        #expect(mkvFrames == Array(shown.suffix(mkvFrames.count)) && mkvFrames.count == 240, "\(mkvFrames.count) frames")
        // --fps shows 261 frames at 30 fps: 8.7 s.
        let cfr = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--fps", "30", "-o", folder.file("cfr.mp4").path])
        #expect(cfr.stdout.contains("261 frames at 30 fps"), "\(cfr.stdout) \(cfr.stderr)")
    }
}
