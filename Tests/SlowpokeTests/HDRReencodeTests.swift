import Foundation
import Testing
import TestSupport

/// HDR10 through `--fps` (issue 51): the re-encoded HEVC carries the source's mastering display
/// and content light level on every frame, as frame-exact cuts already do; an H.264 export of PQ
/// video says before any work what it cannot carry.
@Suite struct HDRReencodeTests {
    static let masterDisplay = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"

    func hdr10Movie(_ folder: TemporaryFolder) throws -> URL {
        let movie = folder.file("hdr10.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=60:d=2", "-f", "lavfi", "-i", "sine=r=48000:d=2",
                                                   "-vf", "format=yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast",
                                                   "-x265-params", "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=\(Self.masterDisplay):max-cll=1000,400",
                                                   "-tag:v", "hvc1", "-c:a", "aac", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// Each frame's mastering display white point and luminance, and content light level.
    func staticHDR(_ file: URL) throws -> [(mastering: String?, light: String?)] {
        let frames = try TestSupport.ffprobe(file, ["-select_streams", "v", "-show_frames", "-show_entries", "frame=side_data_list"])["frames"] as? [[String: Any]] ?? []
        return frames.map { frame in
            let side = frame["side_data_list"] as? [[String: Any]] ?? []
            let mastering = side.first { ($0["side_data_type"] as? String)?.hasPrefix("Mastering") == true }
            let light = side.first { ($0["side_data_type"] as? String)?.lowercased().contains("light") == true }
            return (mastering.map { "\($0["white_point_x"] ?? "")/\($0["max_luminance"] ?? "")/\($0["min_luminance"] ?? "")" },
                    light.map { "\($0["max_content"] ?? "")/\($0["max_average"] ?? "")" })
        }
    }

    @Test func everyReencodedFrameCarriesHDR10() throws {
        let folder = try TemporaryFolder("hdr10-fps")
        let movie = try hdr10Movie(folder)
        let source = try staticHDR(movie)
        #expect(source.count == 120 && source.allSatisfy { $0.mastering != nil && $0.light != nil })
        for edit in [["open", movie.lastPathComponent], ["scale", "--range", "0.5-1", "--rate", "0.5"]] {
            #expect(try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url).status == 0)
        }
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--codec", "hevc", "--preset", "ultrafast",
                                                                "--progress", "none", "-o", "out.mp4"], in: folder.url)
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export.stderr)")
        let output = try staticHDR(folder.file("out.mp4"))
        #expect(output.count == 75, "\(output.count) frames")
        #expect(output.allSatisfy { $0.mastering == source[0].mastering && $0.light == source[0].light },
                "\(output.filter { $0.mastering == nil }.count) of \(output.count) frames lack the mastering display, \(output.filter { $0.light == nil }.count) the light level; source \(source[0])")

        let h264 = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--preset", "ultrafast", "--progress", "none", "-o", "sdr.mp4"], in: folder.url)
        #expect(h264.status == 0)
        #expect(h264.stderr.contains("hdr10.mp4's video is HDR (PQ), and H.264 here is 8-bit: sdr.mp4 keeps the PQ colour tags on 8-bit pictures, which band, and carries no mastering display or content light level (--codec hevc keeps HDR10"), "\(h264.stderr)")
    }
}
