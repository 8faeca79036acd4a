import Composition
import Export
import Foundation
import TestSupport
import Testing

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
        made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", picture,
            "-vf", "format=yuv420p,zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast",
            "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", "-y", hdr.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        func meanLuma(_ url: URL) throws -> (mean: Double, transfer: String?) {
            let reader = try VideoFrameReader(url: url)
            try reader.show(at: Time(value: 1, timescale: 2))
            let mean = try #require(try reader.withPlanes { planes, linesizes in
                var sum = 0
                for y in 0..<reader.height { for x in 0..<reader.width { sum += Int(planes[0][y * linesizes[0] + x]) } }
                return Double(sum) / Double(reader.width * reader.height)
            })
            return (mean, reader.hdrTransfer)
        }
        let reference = try meanLuma(sdr), mapped = try meanLuma(hdr)
        #expect(reference.transfer == nil && mapped.transfer == name)
        #expect(abs(mapped.mean / reference.mean - 1) < 0.15, "\(name): mean luma \(mapped.mean), BT.709 \(reference.mean)")
    }
}
