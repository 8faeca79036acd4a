import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

/// HDR pictures as the preview's reader gives them: tone-mapped to 8-bit BT.709 with about the
/// brightness of the same picture made in BT.709.
@Suite struct ToneMapperTests {
    @Test(arguments: [("smpte2084", "PQ"), ("arib-std-b67", "HLG")])
    func hdrPicturesAreToneMapped(_ transfer: String, _ name: String) throws {
        let folder = try TemporaryFolder("tone-map")
        let picture = "testsrc2=size=320x240:rate=10:duration=1"
        let sdr = folder.file("sdr.mp4"), hdr = folder.file("hdr.mp4")
        var made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", picture, "-pix_fmt", "yuv420p", "-c:v", "libx264",
                                                   "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-y", sdr.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        made = try TestSupport.encodeHDR(picture, transfer: transfer, to: hdr)
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        /// Mean luma at 0.5 s, with pictures limited to `fit` (HDR ones only), and their size.
        func meanLuma(_ url: URL, fit: (Int, Int)? = nil) throws -> (mean: Double, transfer: String?, width: Int, height: Int) {
            let reader = try VideoFrameReader(url: url)
            if let fit { reader.limitToneMappedPictures(toFit: fit.0, fit.1) }
            try reader.show(at: Time(value: 1, timescale: 2))
            let (w, h) = (reader.pictureWidth, reader.pictureHeight)
            let mean = try #require(try reader.withPlanes { planes, linesizes in
                var sum = 0
                for y in 0..<h { for x in 0..<w { sum += Int(planes[0][y * linesizes[0] + x]) } }
                return Double(sum) / Double(w * h)
            })
            return (mean, reader.hdrTransfer, w, h)
        }
        let reference = try meanLuma(sdr), mapped = try meanLuma(hdr)
        #expect(reference.transfer == nil && mapped.transfer == name)
        #expect(abs(mapped.mean / reference.mean - 1) < 0.15, "\(name): mean luma \(mapped.mean), BT.709 \(reference.mean)")
        // Made smaller before tone-mapping (a player's window), same brightness; SDR untouched.
        let small = try meanLuma(hdr, fit: (160, 160)), same = try meanLuma(sdr, fit: (160, 160))
        #expect(small.width == 160 && small.height == 120 && same.width == 320 && same.height == 240)
        #expect(abs(small.mean / reference.mean - 1) < 0.15, "\(name) at 160x120: mean luma \(small.mean)")
    }
}
