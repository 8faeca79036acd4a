import Foundation
import TestSupport
import Testing

/// The status fits any window (issue 54, item 4): a paused picture, in PreviewScreenTests beside
/// the rest of the suite.
extension PreviewScreenTests {
    /// A 320x240 clip and a portrait one (360x640 shown) open at least 640 px wide, and the
    /// status, marks included, ends inside the window: its rightmost text pixel is left of the
    /// window's edge, with the band's margin to spare.
    @Test(arguments: ["small", "portrait"])
    func theWholeStatusShowsInASmallOrPortraitWindow(_ kind: String) throws {
        let folder = try TemporaryFolder("preview-status")
        let clip: URL
        if kind == "small" {
            clip = folder.file("small.mp4")
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=6",
                                                       "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6",
                                                       "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-y", clip.path])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        } else {
            clip = try folder.copy(media: "rotated.mp4")
        }
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--start", "0.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        try session.press("bracketleft")
        try session.press("period")
        try session.press("period")
        try session.press("bracketright")
        try session.press("Left")
        // Until the status shows the last key's rate (or 5 s pass: the check below then fails),
        // and the picture drawn just after it.
        let title = session.waitForTitle { $0.contains("0.75x") && $0.hasSuffix("]") }
        usleep(150_000)
        let shot = try session.screenshot()
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        #expect(shot.width >= 640, "window \(shot.width)x\(shot.height)")
        #expect(title.hasSuffix("]"), "the marks are set: \(title)")
        // The status band, above the strip (28 px) and its row of times (16 px): its text's
        // lower rows, inside the band at every type size.
        var white = 0, rightmost = 0, leftmost = shot.width
        for y in (shot.height - 44 - 18)..<(shot.height - 44 - 6) {
            for x in 0..<shot.width where shot.luma[y * shot.width + x] > 200 {
                white += 1
                rightmost = max(rightmost, x)
                leftmost = min(leftmost, x)
            }
        }
        #expect(white > 100, "white status pixels: \(white)")
        #expect(leftmost >= 8 && leftmost < 20, "the status starts at its margin: \(leftmost)")
        #expect(rightmost < shot.width - 10, "the status ends at \(rightmost) in a \(shot.width) px window: cut off")
    }
}

/// The strip costs a 1080p60 frame little: timed, so in the serialized preview suite.
extension PreviewCommandTests {
    /// The strip's drawing on a 1080p60 clip, in the preview's own frame timing
    /// (SLOWPOKE_PREVIEW_FRAME_TIMES=1): under 1 ms a frame. The same run without the strip
    /// (SLOWPOKE_PREVIEW_STRIP=off) gives the whole present's time for comparison.
    @Test func theStripCostsUnderAMillisecondAFrameAt1080p60() throws {
        let folder = try TemporaryFolder("preview-timing")
        let clip = folder.file("hd.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60:duration=4",
                                                   "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-y", clip.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        #expect(try slowpoke("open", "hd.mp4", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "1-2", "--rate", "0.5", in: folder).status == 0)
        #expect(try slowpoke("reverse", "--range", "3-3.5", in: folder).status == 0)
        /// One 1.5 s run: frames, then the present's median and mean, the strip's median, mean
        /// and slowest, in ms.
        func run(strip: Bool) throws -> (frames: Int, timing: [Double]) {
            let display = try VirtualDisplay()
            let session = try PreviewSession(["hd.slowpoke", "--play"], in: folder.url, display: display, environment: [
                "SLOWPOKE_PREVIEW_FRAME_TIMES": "1", "SLOWPOKE_PREVIEW_STRIP": strip ? "on" : "off"])
            try session.waitUntilReady()
            usleep(1_500_000)
            #expect(session.quit() == 0)
            let stderr = session.stderr()
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("frame timing:") }, "stderr: \(stderr)")
            let numbers = line.split(whereSeparator: { " ,;()".contains($0) }).compactMap { Double($0) }
            try #require(numbers.count == 6, "\(line)")
            print("1080p60, strip \(strip ? "on" : "off"): \(line)")
            return (Int(numbers[0]), Array(numbers.dropFirst()))
        }
        // Interleaved, so that the machine's load and the first run's warm-up fall on both (one
        // run of each in `make test`, two in `make test-long`).
        var with: [[Double]] = [], without: [[Double]] = []
        for strip in TestTier.isLong ? [false, true, false, true] : [false, true] {
            let (frames, timing) = try run(strip: strip)
            #expect(frames >= 5, "frames drawn: \(frames)")
            if strip { with.append(timing) } else { without.append(timing) }
        }
        for timing in with {
            #expect(timing[2] < 1 && timing[3] < 1, "the strip's drawing: median \(timing[2]) ms, mean \(timing[3]) ms a frame")
        }
        #expect(without.allSatisfy { $0[2] == 0 && $0[3] == 0 })
        print("present median with the strip \(with.map { $0[0] }) ms, without \(without.map { $0[0] }) ms")
    }
}
