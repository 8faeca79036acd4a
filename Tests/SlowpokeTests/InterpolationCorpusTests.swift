import Foundation
import TestSupport
import Testing

/// `export --frames interpolate` over footage that breaks optical flow (issue 35): a scene
/// cut, a one-frame flash, a fade to black, a static picture, pure noise and scrolling text,
/// one after the other in one clip, slowed so that every pair between them is interpolated.
/// At 640 px and wider the flow runs on a picture scaled down and a pair it cannot explain (a
/// cut, a flash) is tried again at full size: that retry crashed (SIGSEGV in OpenCV's DIS,
/// reused at a second size). Each export must succeed and give exactly the frames the
/// timeline asks for, at their times, decoding cleanly (ffprobe and ffmpeg are the oracle).
@Suite struct InterpolationCorpusTests {
    /// Source frames of each part of the corpus, at 30 fps.
    static let partFrames = 8
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The corpus at `width` x `height`, lossless FFV1 in Matroska (any size, 8 or 10 bits):
    /// moving test pattern; cut to a scrolling cellular automaton; a white frame; the pattern
    /// fading out; a still picture; noise; white text scrolling up over black.
    static func corpus(_ width: Int, _ height: Int, tenBit: Bool, in folder: TemporaryFolder) throws -> URL {
        let movie = folder.file("corpus.mkv"), s = "s=\(width)x\(height):r=30", n = partFrames
        let parts = [
            "testsrc2=\(s),trim=end_frame=\(n),setpts=PTS-STARTPTS",
            "cellauto=\(s):rule=110:scroll=1:full=1,trim=end_frame=\(n),setpts=PTS-STARTPTS",
            "color=white:\(s),trim=end_frame=1",
            "testsrc2=\(s),trim=start_frame=20:end_frame=\(20 + n),setpts=PTS-STARTPTS,fade=out:0:\(n)",
            "testsrc2=\(s),trim=end_frame=1,loop=loop=\(n - 1):size=1,setpts=N/30/TB",
            "color=gray:\(s),noise=alls=100:allf=t+u,trim=end_frame=\(n)",
            "color=black:\(s),drawtext=fontfile=\(font):text='slowpoke scrolls':fontsize=40:fontcolor=white:x=20:y=h-12*n,trim=end_frame=\(n)",
        ]
        let graph = parts.enumerated().map { "\($1),format=yuv420p,setsar=1[p\($0)]" }.joined(separator: ";")
            + ";" + parts.indices.map { "[p\($0)]" }.joined() + "concat=n=\(parts.count),format=\(tenBit ? "yuv420p10le" : "yuv420p")"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-c:v", "ffv1", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        return movie
    }

    static var corpusFrames: Int { 6 * partFrames + 1 }

    /// Slows the whole corpus by `rate` and exports it at `fps` with interpolated frames;
    /// checks the frame count, every frame's time, the bit depth and a clean decode. Returns
    /// how many frames were checked.
    static func exportAndCheck(_ width: Int, _ height: Int, tenBit: Bool, rate: String, fps: Int) throws -> Int {
        let folder = try TemporaryFolder("flow-corpus")
        let movie = try corpus(width, height, tenBit: tenBit, in: folder)
        let output = folder.file("out.mkv")
        // The corpus is 49 frames long (1.633 s); the slowed range ends on a frame boundary.
        let end = String(format: "%.3f", Double(corpusFrames - 1) / 30)
        let codec = tenBit ? ["--codec", "hevc"] : []
        _ = try DeinterlaceTests.export(movie, to: output, edits: [["scale", "--range", "0-\(end)", "--rate", rate]],
                                        ["--fps", "\(fps)", "--frames", "interpolate", "--preset", "ultrafast",
                                         "--progress", "none"] + codec)
        // The timeline: the slowed range, then the last source frame at its own speed.
        let seconds = Double(corpusFrames - 1) / 30 / Double(rate)! + 1.0 / 30
        let expected = Int((seconds * Double(fps)).rounded(.up))
        let probe = try TestSupport.ffprobe(output, ["-select_streams", "v:0", "-show_entries",
                                                     "frame=best_effort_timestamp_time:stream=width,height,pix_fmt"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(stream["width"] as? Int == width && stream["height"] as? Int == height, "\(stream)")
        #expect(stream["pix_fmt"] as? String == (tenBit ? "yuv420p10le" : "yuv420p"), "\(stream)")
        let times = try #require(probe["frames"] as? [[String: Any]]).compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap(Double.init) }
        #expect(times.count == expected, "\(width)x\(height): \(times.count) frames, expected \(expected)")
        var checked = 0
        for (k, time) in times.enumerated() {
            #expect(abs(time - Double(k) / Double(fps)) < 0.0015, "frame \(k) at \(time) s, expected \(Double(k) / Double(fps))")
            checked += 1
        }
        let decoded = try TestSupport.frameMD5s(output)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        #expect(decoded.md5s.count == expected)
        return checked
    }

    /// Sizes under 640 px (the flow at full size) and from 640 px (scaled down, the retry at full
    /// size), 8-bit and 10-bit: `make test` runs one of each kind, `make test-long` all five.
    static let sizes = [(320, 240, false), (640, 360, true)]
        + (TestTier.isLong ? [(640, 360, false), (854, 480, false), (854, 480, true)] : [])

    @Test(arguments: sizes)
    func everyPairInterpolates(size: (Int, Int, Bool)) throws {
        let (width, height, tenBit) = size
        #expect(try Self.exportAndCheck(width, height, tenBit: tenBit, rate: "0.5", fps: 30) >= 97)
    }

    /// The demo timeline itself: media/clip60.mp4 slowed 3.2-5.0 to 0.25x, at 30 fps (and at 60,
    /// twice the frames to interpolate, in `make test-long`).
    @Test(arguments: TestTier.isLong ? [30, 60] : [30])
    func demoTimelineInterpolates(fps: Int) throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "3.2-5.0", "--rate", "0.25"]])
        let result = try slowpoke("export", "--fps", "\(fps)", "--frames", "interpolate", "--preset", "ultrafast",
                                  "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let times = try videoFrames(folder.file("out.mp4"))
        // 15.4 s of timeline.
        #expect(times.pts.count == 154 * fps / 10, "\(times.pts.count) frames")
        #expect(try folder.listing().filter { $0.contains("slowpoke-tmp") }.isEmpty)
    }
}
