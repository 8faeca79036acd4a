import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

/// Passthrough starts rendering audio from ``VideoScan/leadingOrigin(movie:stream:)`` before the
/// full scan; it must agree with the scan and with ffprobe's earliest video timestamp.
@Suite struct VideoScanTests {
    /// The earliest presentation timestamp of the first video stream by ffprobe, in seconds.
    func probedOrigin(_ movie: URL) throws -> Double {
        let json = try TestSupport.ffprobe(movie, ["-select_streams", "v:0", "-show_entries", "packet=pts_time"])
        let times = (json["packets"] as? [[String: Any]] ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
        return try #require(times.min())
    }

    @Test(arguments: ["clip60.mp4", "clip240.mp4", "rotated.mp4", "ntsc2997.mp4", "bframes.mp4", "bframes.mkv"])
    func theLeadingOriginIsTheScansOrigin(name: String) throws {
        let folder = try TemporaryFolder("scan")
        let movie: URL
        if name.hasPrefix("bframes") {
            // B-frames make the first packet's decode time precede its presentation time.
            movie = folder.file(name)
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3",
                                                       "-c:v", "libx264", "-bf", "3", "-g", "15", "-pix_fmt", "yuv420p", movie.path])
            try #require(made.status == 0, "\(made.stderr)")
        } else {
            movie = TestSupport.media(name)
        }
        let stream = try #require(try Prober.probe(movie).primaryVideo).index
        let early = try #require(try VideoScan.leadingOrigin(movie: movie, stream: stream))
        let scan = try VideoScan(movie: movie, stream: stream, name: name, warning: { _ in })
        #expect(early == scan.origin)
        #expect(abs(early.seconds - (try probedOrigin(movie))) < 1e-6)
    }
}
