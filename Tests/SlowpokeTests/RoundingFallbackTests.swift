import Foundation
import TestSupport
import Testing

/// A timeline the document accepts but whose exact times do not fit a 32-bit timescale still
/// exports, both ways, rounding where it must and saying so (issue 20, defect 2).
@Suite struct RoundingFallbackTests {
    @Test func stackedPrimeRatesExportByRounding() throws {
        let folder = try TemporaryFolder("rounding")
        let movie = folder.file("fast.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=240:duration=12",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "240", "-pix_fmt", "yuv420p", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("fast.slowpoke")
        for (range, rate) in [("0.5-1.5", "31"), ("1-2", "29"), ("1.5-2.5", "23"), ("2-3", "19"), ("2.5-3.5", "17"), ("3-4", "13")] {
            let scaled = try TestSupport.run(TestSupport.slowpoke, ["scale", document.path, "--range", range, "--rate", rate])
            try #require(scaled.status == 0, "\(scaled.stderr)")
        }
        let passthrough = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", folder.file("p.mp4").path])
        #expect(passthrough.status == 0, "\(passthrough.stderr)")
        #expect(passthrough.stdout.contains("2880 frames") && passthrough.stdout.contains("timestamps rounded to "), "\(passthrough.stdout)")
        let decoded = try TestSupport.frameMD5s(folder.file("p.mp4"))
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        #expect(decoded.md5s.count == 2880)
        let constant = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--fps", "30", "-o", folder.file("c.mp4").path])
        #expect(constant.status == 0, "\(constant.stderr)")
        // 546861366/86822723 s at 30 fps: 189 frames.
        #expect(constant.stdout.contains("189 frames at 30 fps"), "\(constant.stdout)")
    }
}
