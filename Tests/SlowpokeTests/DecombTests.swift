import Foundation
import TestSupport
import Testing

/// Decomb (issue 41, item 5): `--fps` deinterlaces only frames that comb. Progressive content
/// coded as interlaced (film broadcast as 1080i, PsF) keeps its full vertical detail: before,
/// bwdif rebuilt every other line of it, 33.6 dB against the source frames.
@Suite struct DecombTests {
    /// A 25p picture with motion and fine detail, coded as interlaced H.264 (tff, PAFF/MBAFF
    /// flags set) in a transport stream: every frame is one instant, so none combs. Exported
    /// at 25 fps, every output picture is its source frame: at least 45 dB each (the encode at
    /// crf 4 is all that differs), none deinterlaced.
    @Test func progressiveContentCodedAsInterlacedKeepsItsDetail() throws {
        let folder = try TemporaryFolder("decomb")
        let psf = folder.file("psf.ts")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25", "-t", "3",
                                                   "-vf", "setfield=tff", "-flags", "+ildct+ilme", "-c:v", "libx264",
                                                   "-x264-params", "interlaced=1:tff=1", "-crf", "10", "-pix_fmt", "yuv420p",
                                                   "-f", "mpegts", psf.path])
        try #require(made.status == 0, "\(made.stderr)")
        let field = try videoStream(psf, "field_order")
        try #require(field["field_order"] as? String == "tt", "the source must be coded as interlaced: \(field)")
        let output = folder.file("out.mkv")
        let stdout = try DeinterlaceTests.export(psf, to: output, ["--fps", "25", "--crf", "4"])
        #expect(stdout.contains("0 of 75 frames combed"), "\(stdout)")
        let source = try ConstantRateIntegrityTests.lumaFrames(psf, width: 720, height: 576)
        let pictures = try ConstantRateIntegrityTests.lumaFrames(output, width: 720, height: 576)
        try #require(source.count == 75 && pictures.count == 75, "\(source.count) source frames, \(pictures.count) pictures")
        let scores = zip(pictures, source).map { DeinterlaceTests.psnr($0, $1) }
        let worst = scores.min() ?? 0
        print("decomb: worst \(worst) dB, mean \(scores.reduce(0, +) / Double(scores.count)) dB")
        #expect(worst >= 45, "worst picture \(worst) dB against its source frame")
    }
}
