import Foundation
import TestSupport
import Testing

/// The picture's shown shape (issue 26, item 1): rotation from the display matrix and the sample
/// aspect ratio, checked on screen against ffmpeg's own rendering. Paused pictures: in
/// PreviewScreenTests, beside the rest of the suite.
extension PreviewScreenTests {
    /// media/rotated.mp4 is stored 640x360 with a 90° clockwise display matrix (ffprobe rotation
    /// -90); remuxed with ffmpeg's `rotate` tag it turns 270° (tag 90: ffmpeg 5.1 writes the
    /// opposite turn, see media/README.md) or 180°. The window takes the shown shape and the
    /// picture on it is ffmpeg's own auto-rotated frame, not the stored one nor another turn.
    /// A portrait window is at least 640 px wide (issue 54): the 360x640 picture, scaled to
    /// 405x720, is letterboxed at the sides; the timeline strip's band (44 px) is below it.
    @Test(arguments: [(nil, 640, 764), ("90", 640, 764), ("180", 640, 404)] as [(String?, Int, Int)])
    func aRotatedClipShowsUprightInItsShape(_ tag: String?, _ width: Int, _ height: Int) throws {
        let folder = try TemporaryFolder("preview-rotated")
        var clip = try folder.copy(media: "rotated.mp4")
        if let tag {
            let source = clip
            clip = folder.file("rotated\(tag).mp4")
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", source.path, "-map", "0", "-c", "copy",
                                                       "-metadata:s:v:0", "rotate=\(tag)", "-y", clip.path])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        }
        let display = try VirtualDisplay()
        // Frame 45 (1.5 s at 30 fps), paused.
        let session = try PreviewSession([clip.path, "--start", "1.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let shot = try session.screenshot()
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        #expect(shot.width == width && shot.height == height, "window \(shot.width)x\(shot.height)")

        // Where the picture is: the shown shape's largest centred box (portrait: 405x720 in 640x720).
        let (shownW, shownH) = tag == "180" ? (640.0, 360.0) : (360.0, 640.0)
        let pictureHeight = shot.height - 44
        let scale = min(Double(shot.width) / shownW, Double(pictureHeight) / shownH)
        let boxW = Int(shownW * scale), boxH = Int(shownH * scale)
        let x0 = (shot.width - boxW) / 2, y0 = (pictureHeight - boxH) / 2

        // ffmpeg's rendering of the same frame, scaled to the box: rotated by its display
        // matrix (autorotate); and, as the wrong answers the check must reject, the stored
        // picture turned by each quarter turn.
        func reference(_ filters: String, autorotate: Bool) throws -> [UInt8] {
            let raw = folder.file("reference-\(UUID().uuidString).gray")
            let result = try TestSupport.tool("ffmpeg", ["-v", "error"] + (autorotate ? [] : ["-noautorotate"]) + [
                "-i", clip.path, "-vf", "select=eq(n\\,45),\(filters)scale=\(boxW):\(boxH)",
                "-frames:v", "1", "-pix_fmt", "gray", "-f", "rawvideo", "-y", raw.path])
            try #require(result.status == 0, "ffmpeg: \(result.stderr)")
            return [UInt8](try Data(contentsOf: raw))
        }
        // The status band covers the picture's bottom: compare the box's rows above it.
        let rows = min(boxH, pictureHeight - 40 - y0)
        let n = rows * boxW
        var picture: [UInt8] = []
        for y in 0..<rows {
            let first: Int = (y0 + y) * shot.width + x0
            picture += shot.luma[first..<(first + boxW)]
        }
        func correlation(_ other: [UInt8]) -> Double {
            let a = picture.map(Double.init), b = other[0..<n].map(Double.init)
            let ma = a.reduce(0, +) / Double(n), mb = b.reduce(0, +) / Double(n)
            var ab = 0.0, aa = 0.0, bb = 0.0
            for i in 0..<n { ab += (a[i] - ma) * (b[i] - mb); aa += (a[i] - ma) * (a[i] - ma); bb += (b[i] - mb) * (b[i] - mb) }
            return ab / max(1e-9, (aa * bb).squareRoot())
        }
        let upright = correlation(try reference("", autorotate: true))
        #expect(upright > 0.9, "correlation with ffmpeg's rotated frame: \(upright)")
        // Exactly one quarter turn of the stored picture matches what is on screen (the one
        // ffmpeg applies); the stored picture and the other turns do not.
        let turns = ["": 0, "transpose=clock,": 90, "hflip,vflip,": 180, "transpose=cclock,": 270]
        var matching: [Int] = [], scores: [Int: Double] = [:]
        for (filters, degrees) in turns {
            let score = correlation(try reference(filters, autorotate: false))
            scores[degrees] = score
            if score > 0.9 { matching.append(degrees) } else { #expect(score < 0.5, "turned \(degrees)°: \(score)") }
        }
        let expected = tag == nil ? 90 : tag == "90" ? 270 : 180
        #expect(matching == [expected], "correlation by clockwise turn: \(scores)")
    }

    /// Anamorphic 720x480 at SAR 32:27 is shown 16:9 (853x480), as ffplay shows it.
    @Test func anAnamorphicClipOpensAtItsDisplayAspect() throws {
        let folder = try TemporaryFolder("preview-sar")
        let clip = folder.file("anamorphic.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=720x480:rate=30:duration=2",
                                                   "-vf", "setsar=32/27", "-c:v", "libx264", "-preset", "ultrafast", "-y", clip.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--start", "1"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let geometry = try #require(try session.geometry())
        let shot = try session.screenshot()
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        // The picture's part of the window: all but the timeline strip's band (44 px).
        let aspect = Double(geometry.width) / Double(geometry.height - 44)
        #expect(abs(aspect / (16.0 / 9) - 1) < 0.02, "window \(geometry.width)x\(geometry.height)")
        // The picture fills the window: no black bars at the left and right edges (testsrc2
        // has no black columns there).
        let middle = shot.height / 2
        let left = shot.luma[middle * shot.width + 2], right = shot.luma[middle * shot.width + shot.width - 3]
        #expect(left > 16 || right > 16, "edge luma \(left), \(right)")
    }
}
