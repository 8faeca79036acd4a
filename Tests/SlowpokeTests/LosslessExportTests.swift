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
        let source = try TestSupport.frameMD5s(movie).md5s, out = try TestSupport.frameMD5s(output).md5s
        #expect(source.count == 600 && out == source, "\(out.count) frames, \(zip(out, source).filter { $0 != $1 }.count) differ")
    }
}
