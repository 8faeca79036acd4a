import Foundation
import TestSupport
import Testing

/// `--crf 0` is lossless H.264 (x264's High 4:4:4 Predictive profile), not an encoder error.
@Suite struct LosslessExportTests {
    @Test func crfZeroKeepsEveryPixel() throws {
        let folder = try TemporaryFolder("lossless")
        let movie = try folder.copy(media: "clip60.mp4")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let output = folder.file("out.mkv")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("clip60.slowpoke").path, "--fps", "60",
                                                                 "--crf", "0", "--preset", "ultrafast", "-o", output.path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(!export.stderr.contains("x264 [error]"), "\(export.stderr)")
        func md5s(_ file: URL) throws -> [Substring] {
            try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
                .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        }
        let source = try md5s(movie), out = try md5s(output)
        #expect(source.count == 600 && out == source, "\(out.count) frames, \(zip(out, source).filter { $0 != $1 }.count) differ")
    }
}
