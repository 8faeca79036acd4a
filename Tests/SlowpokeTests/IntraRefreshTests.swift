import Foundation
import Testing
import TestSupport

/// Intra-refresh H.264 (issue 51): x264's `intra-refresh` writes one IDR picture, then recovery
/// points whose pictures are whole only a refresh period later, which the mp4 marks as sync
/// samples. A frame-exact cut or a reverse decodes from where the picture is whole (an earlier
/// recovery point, back to the IDR), so its frames are the source's: copied ones identical,
/// re-encoded ones at 45 dB or better. Before, both exports stopped: "could not be decoded".
@Suite struct IntraRefreshTests {
    static let rate = SmartCutTests.rate

    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    @Test(arguments: [(["remove", "--range", "2.1-2.9"], Array(0..<53) + Array(73..<125)),
                      (["reverse", "--range", "1-2.5"], Array(0..<25) + Array((25..<63).reversed()) + Array(63..<125))])
    func cutsAndReversesAreFrameExact(edit: [String], shown: [Int]) throws {
        let folder = try TemporaryFolder("intra-refresh")
        let movie = folder.file("ir.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(SmartCutTests.width)x\(SmartCutTests.height):r=\(Self.rate):d=5",
                                                   "-f", "lavfi", "-i", "sine=d=5", "-c:v", "libx264", "-preset", "veryfast", "-bf", "0",
                                                   "-x264-params", "intra-refresh=1:keyint=50", "-c:a", "aac", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        let source = try SmartCutTests.pictures(movie, in: folder)
        #expect(source.frames.count == 125 && source.errors.isEmpty)
        for step in [["open", "ir.mp4"], edit] { #expect(try slowpoke(step, in: folder).status == 0) }
        let info = try slowpoke(["info"], in: folder)
        #expect(!info.stdout.contains("refuses"), "\(info.stdout)")
        let export = try slowpoke(["export", "-o", "out.mp4", "--progress", "none"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let out = try SmartCutTests.pictures(folder.file("out.mp4"), in: folder)
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(out.frames.count == shown.count, "\(out.frames.count) frames, the timeline shows \(shown.count)")
        let (identical, worst, poor) = SmartCutTests.compare(out.frames, with: shown.map { source.frames[$0] }, psnr: SmartCutTests.psnr)
        #expect(poor.isEmpty, "\(poor.count) frames under 45 dB (worst \(worst) dB)")
        // Copying resumes only at an IDR picture, and the one IDR is the first frame: the frames
        // before the edit are copied, those after it re-encoded.
        #expect(identical >= 25, "\(identical) identical")
    }

    /// The same search from an earlier keyframe where a span's later frame is missing: x264's
    /// open-GOP B-pyramid P picture after the last I picture refers to one of that I picture's
    /// leading B pictures, so decoding from that I picture gave every frame of a reverse ending
    /// at the movie's end but its last ("1 frames from 1.98 s could not be decoded").
    @Test func aFrameThatNeedsTheGOPBeforeIsDecodedFromThere() throws {
        let folder = try TemporaryFolder("open-gop-tail")
        let movie = folder.file("og.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(SmartCutTests.width)x\(SmartCutTests.height):r=50:d=2",
                                                   "-f", "lavfi", "-i", "sine=d=2", "-c:v", "libx264", "-preset", "veryfast",
                                                   "-x264-params", "keyint=24:min-keyint=24:scenecut=0:bframes=3:b-pyramid=normal:open-gop=1",
                                                   "-c:a", "aac", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        let source = try SmartCutTests.pictures(movie, in: folder)
        #expect(source.frames.count == 100 && source.errors.isEmpty)
        for step in [["open", "og.mp4"], ["reverse", "--range", "1.32-1.96"]] { #expect(try slowpoke(step, in: folder).status == 0) }
        let export = try slowpoke(["export", "--exact", "-o", "out.mp4", "--progress", "none"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let shown = Array(0..<66) + Array((66..<98).reversed()) + Array(98..<100)
        let out = try SmartCutTests.pictures(folder.file("out.mp4"), in: folder)
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(out.frames.count == shown.count, "\(out.frames.count) frames, the timeline shows \(shown.count)")
        let (identical, worst, poor) = SmartCutTests.compare(out.frames, with: shown.map { source.frames[$0] }, psnr: SmartCutTests.psnr)
        #expect(poor.isEmpty, "\(poor.count) frames under 45 dB (worst \(worst) dB)")
        #expect(identical >= 60, "\(identical) identical")
    }
}
