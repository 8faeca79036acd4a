import Foundation
import TestSupport
import Testing

/// The code band (the top W/16 rows, which carry the frame index) of every decoded frame, gray.
func codeBands(_ file: URL, width: Int) throws -> [[UInt8]] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-bands-\(UUID().uuidString).gray")
    defer { try? FileManager.default.removeItem(at: raw) }
    let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-noautorotate", "-i", file.path, "-map", "0:v:0",
                                                  "-vsync", "passthrough", "-vf", "crop=iw:iw/16:0:0",
                                                  "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw.path])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let data = [UInt8](try Data(contentsOf: raw))
    let size = width * (width / 16)
    return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) }
}

/// Mean absolute difference of two bands (or pictures), over `a`'s size. A `while` loop over
/// raw pointers: in the tests' debug build, `zip(a, b).reduce` made a call per pixel and took
/// some 10 s of the suite's CPU (bands of 25,600 pixels and pictures of 230,400).
func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    let n = min(a.count, b.count)
    guard n > 0 else { return .nan }
    let sum = a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            let (pa, pb) = (a.baseAddress!, b.baseAddress!)
            var sum = 0, i = 0
            while i < n {
                let d = Int(pa[i]) &- Int(pb[i])
                sum &+= d < 0 ? 0 &- d : d
                i &+= 1
            }
            return sum
        }
    }
    return Double(sum) / Double(a.count)
}

/// The stream's fields, from ffprobe.
func videoStream(_ file: URL, _ fields: String) throws -> [String: Any] {
    let probe = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_entries", "stream=\(fields)"])
    return try #require((probe["streams"] as? [[String: Any]])?.first)
}

/// Packet timestamps of the video, sorted, with the time base.
func decodeCleanly(_ file: URL) throws {
    let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-f", "null", "-"])
    #expect(check.status == 0)
    #expect(check.stderr == "", "ffmpeg -v error printed: \(check.stderr)")
}

@Suite struct ConstantRateExportTests {
    /// The issue's case, which two tests read: 3.2-5.0 s of the 60 fps clip at quarter speed,
    /// exported at 30 fps (once per test process; the export is checked to succeed and to write
    /// only its output beside the document). Shared: not to be written to.
    static func quarterSpeedAt30fps() throws -> URL {
        try GeneratedMedia.shared(["slowpoke export --fps 30", "clip60.mp4", "scale --range 3.2-5.0 --rate 0.25"], extension: "mp4") { file in
            let folder = try project("clip60.mp4", edits: [["scale", "--range", "3.2-5.0", "--rate", "0.25"]])
            let result = try slowpoke("export", "--fps", "30", "--progress", "none", in: folder)
            try #require(result.status == 0, "\(result.stderr)")
            try #require(try folder.listing() == ["clip-30fps.mp4", "clip.mp4", "clip.slowpoke"])
            try FileManager.default.copyItem(at: folder.file("clip-30fps.mp4"), to: file)
        }
    }

    /// The issue's case: 3.2-5.0 s of the 60 fps clip at quarter speed, exported at 30 fps.
    @Test func quarterSpeedAt30fpsHoldsThePredictedFrames() throws {
        let out = try Self.quarterSpeedAt30fps()

        // round(15.4 × 30) = 462 frames, each exactly 1/30 s after the last.
        let (pts, base) = try videoFrames(out)
        #expect(pts.count == 462)
        let steps = Set(zip(pts, pts.dropFirst()).map { Double($1 - $0) * Double(base.0) / Double(base.1) })
        #expect(steps.count == 1 && abs(steps.first! - 1.0 / 30) < 1e-12, "frame steps \(steps)")
        #expect(pts.first == 0)

        // Sample and hold, computed here in 1/120 s units: output frame k is at 4k. Before
        // 3.2 s (384) source = composition; inside, 384 + (4k - 384)/4 = k + 288; after
        // 10.4 s (1248), composition - 5.4 s (648). Source frame n is at 2n.
        let predicted = (0..<462).map { k -> Int in
            let t = 4 * k
            let s = t < 384 ? t : t < 1248 ? k + 288 : t - 648
            return s / 2
        }
        #expect(try frameCodes(out, width: 1280, height: 720) == predicted)

        // Audio and video last as long as each other, to within one frame.
        let streams = try #require(try TestSupport.ffprobe(out, ["-show_entries", "stream=codec_type,duration,profile,pix_fmt,color_primaries,color_transfer,color_space,r_frame_rate"])["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        let videoDuration = Double(video["duration"] as! String)!, audioDuration = Double(audio["duration"] as! String)!
        #expect(abs(videoDuration - 15.4) < 1e-6)
        #expect(abs(audioDuration - videoDuration) <= 1.0 / 30, "audio \(audioDuration) s, video \(videoDuration) s")
        #expect(video["profile"] as? String == "High")
        #expect(video["pix_fmt"] as? String == "yuv420p")
        #expect(video["r_frame_rate"] as? String == "30/1")
        for key in ["color_primaries", "color_transfer", "color_space"] { #expect(video[key] as? String == "bt709", "\(key)") }
        try decodeCleanly(out)
    }

    /// Each flash (video) starts with its beep (audio) within half an output frame, inside the
    /// slowed range too (the renderer splits stretched audio at onsets; see TimelineRenderer).
    @Test func flashesLineUpWithBeeps() throws {
        let out = try Self.quarterSpeedAt30fps()
        let codes = try frameCodes(out, width: 1280, height: 720)
        // Flashes are source frames 60n…60n+2; the first output frame showing one starts it.
        var flashes: [Double] = []
        for (k, code) in codes.enumerated() where code % 60 < 3 && (k == 0 || codes[k - 1] % 60 >= 3) {
            flashes.append(Double(k) / 30)
        }
        #expect(flashes.count == 10)
        let beeps = Signals.onsets(try TestSupport.decodeAudio(out), threshold: 0.05, quiet: 4800).map { Double($0) / 48000 }
        #expect(beeps.count == 10)
        for (flash, beep) in zip(flashes, beeps) {
            #expect(abs(flash - beep) <= 0.5 / 30, "flash at \(flash) s, beep at \(beep) s")
        }
    }

    /// 29.97 (which slowpoke reads as 30000/1001); the fraction spelled out too in `make test-long`.
    @Test(arguments: TestTier.isLong ? ["29.97", "30000/1001"] : ["29.97"])
    func ntscRatesAreExact(fps: String) throws {
        let folder = try project("clip240.mp4")
        let result = try slowpoke("export", "--fps", fps, "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let out = folder.file("clip-29.97fps.mp4")
        let stream = try videoStream(out, "r_frame_rate,avg_frame_rate,time_base")
        #expect(stream["r_frame_rate"] as? String == "30000/1001")
        #expect(stream["avg_frame_rate"] as? String == "30000/1001")
        // round(2 s × 30000/1001) = 60 frames, each exactly 1001/30000 s apart.
        let (pts, base) = try videoFrames(out)
        #expect(pts.count == 60)
        for (a, b) in zip(pts, pts.dropFirst()) {
            #expect((b - a) * base.0 * 30000 == 1001 * base.1, "step \(b - a) at \(base.0)/\(base.1)")
        }
        // Frame k shows source frame floor(k × 1001/30000 × 240).
        #expect(try frameCodes(out, width: 640, height: 360) == (0..<60).map { $0 * 1001 * 240 / 30000 })
    }

    /// Blend and interpolate change only the frames that fall between source frames inside
    /// the slowed range; everywhere else each output frame is its source frame.
    @Test(arguments: [("blend", "0.5-1.0"), ("interpolate", "0.5-0.6")])
    func inBetweenFramesOnlyInsideTheSlowedRange(mode: String, range: String) throws {
        let folder = try project("clip240.mp4", edits: [["scale", "--range", range, "--rate", "0.25"]])
        // --exact: the range's own length (by default fitted to whole AAC frames).
        let result = try slowpoke("export", "--fps", "240", "--frames", mode, "--exact", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let out = folder.file("clip-240fps.mp4")
        let output = try codeBands(out, width: 640)
        let source = try codeBands(TestSupport.media("clip240.mp4"), width: 640)
        #expect(source.count == 480)
        let pictures = mode == "interpolate" ? try ConstantRateIntegrityTests.lumaFrames(out, width: 640, height: 360) : nil
        let sourcePictures = mode == "interpolate" ? try ConstantRateIntegrityTests.lumaFrames(TestSupport.media("clip240.mp4"), width: 640, height: 360) : nil
        // In 1/960 s units: the range starts at 480 and, slowed 4×, lasts 4 × its length.
        let bounds = range.split(separator: "-").map { Int(Double($0)! * 960) }
        let (start, end) = (bounds[0], bounds[0] + 4 * (bounds[1] - bounds[0]))
        #expect(output.count == (480 * 4 + (end - start) - (bounds[1] - bounds[0])) / 4)
        var inBetween = 0
        for (k, band) in output.enumerated() {
            let t = 4 * k
            // Source time in 1/960 s: frame n is at 4n.
            let s = t < start ? t : t < end ? bounds[0] + (t - start) / 4 : t - (end - start) + (bounds[1] - bounds[0])
            let exact = t < start || t >= end ? true : (t - start) % 16 == 0
            let n = s / 4
            if exact {
                #expect(difference(band, source[n]) < 2, "frame \(k) should be source frame \(n) unchanged")
            } else if mode == "blend" {
                inBetween += 1
                let before = difference(band, source[n]), after = difference(band, source[n + 1])
                #expect(before > 2 && after > 2, "frame \(k) (between \(n) and \(n + 1)) differs by \(before) and \(after)")
            } else {
                // The code band's bits flip without moving, so the flow may rightly keep the
                // nearer frame's bits there: the whole picture tells an in-between frame from a
                // copy (copies differ by at most 0.04 on average, in-between frames by 0.2 or more).
                inBetween += 1
                let before = difference(pictures![k], sourcePictures![n]), after = difference(pictures![k], sourcePictures![n + 1])
                #expect(before > 0.1 && after > 0.1, "frame \(k) (between \(n) and \(n + 1)) differs by \(before) and \(after)")
            }
        }
        #expect(inBetween == 3 * (end - start) / 16)
        try decodeCleanly(out)
    }

    @Test func rotationIsKept() throws {
        let folder = try project("rotated.mp4")
        let result = try slowpoke("export", "--fps", "30", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let fields = "width,height,sample_aspect_ratio:stream_side_data=rotation"
        let before = try videoStream(TestSupport.media("rotated.mp4"), fields)
        let after = try videoStream(folder.file("clip-30fps.mp4"), fields)
        let rotation = { (s: [String: Any]) in (s["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first }
        #expect(rotation(before) != nil)
        #expect(rotation(after) == rotation(before))
        for key in ["width", "height", "sample_aspect_ratio"] { #expect("\(before[key] ?? "-")" == "\(after[key] ?? "-")", "\(key)") }
        try decodeCleanly(folder.file("clip-30fps.mp4"))
    }

    /// Unlike passthrough, a re-encode cuts exactly where asked, and a gap is black.
    @Test func cutsAreExactAndGapsAreBlack() throws {
        let folder = try project("clip60.mp4", edits: [["remove", "--range", "2.5-4.5"], ["insert-gap", "--at", "1", "--duration", "0.5"]])
        // --exact: where asked to the sample (by default the gap and the cut are fitted to whole
        // AAC frames, moving each by less than half a frame). x264's ultrafast preset: which
        // frames come out, and black, do not depend on it (the default took 3 s of CPU more).
        let result = try slowpoke("export", "--fps", "60", "--exact", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let codes = try frameCodes(folder.file("clip-60fps.mp4"), width: 1280, height: 720)
        // 0-1 s, then 0.5 s of black (every block dark: code 0), then 1-2.5 s, then 4.5-10 s.
        #expect(codes == Array(0..<60) + Array(repeating: 0, count: 30) + Array(60..<150) + Array(270..<600))
        let bands = try codeBands(folder.file("clip-60fps.mp4"), width: 1280)
        for k in 60..<90 { #expect(bands[k].allSatisfy { $0 < 24 }, "frame \(k) is not black") }
    }

    @Test func hevcEncodes() throws {
        let folder = try project("clip240.mp4", edits: [["scale", "--range", "0.5-0.75", "--rate", "0.5"]])
        let result = try slowpoke("export", "--fps", "60", "--codec", "hevc", "--crf", "28", "--preset", "ultrafast", "-o", "h.mkv", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let stream = try videoStream(folder.file("h.mkv"), "codec_name,profile,pix_fmt")
        #expect(stream["codec_name"] as? String == "hevc")
        #expect(stream["profile"] as? String == "Main")
        #expect(stream["pix_fmt"] as? String == "yuv420p")
        // 2.25 s at 60 fps; frame k shows source frame floor(s × 240).
        let codes = try frameCodes(folder.file("h.mkv"), width: 640, height: 360)
        #expect(codes.count == 135)
        #expect(codes.prefix(30) == ArraySlice((0..<30).map { $0 * 4 }))
        try decodeCleanly(folder.file("h.mkv"))
    }

    @Test func badSettingsAreRefusedAndWriteNothing() throws {
        let folder = try project("clip240.mp4")
        for (arguments, status, message) in [
            (["--fps", "fast"], Int32(1), "--fps fast is not a frame rate"),
            (["--fps", "0"], 1, "--fps 0 is outside 1…1000 frames per second"),
            (["--fps", "30", "--preset", "warp"], 1, "--preset warp is not one of ultrafast"),
            (["--fps", "30", "--crf", "60"], 1, "--crf 60.0 is outside 0…51"),
            (["--crf", "20"], 64, "add --fps N"),
            (["--fps", "30", "--frames", "smear"], 64, "smear"),
        ] {
            let result = try TestSupport.run(TestSupport.slowpoke, ["export", "--progress", "none"] + arguments, in: folder.url)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
        }
    }

    @Test func anInterruptLeavesNothing() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "1-9", "--rate", "0.25"]])
        let run = try TestSupport.interrupt(["export", "--fps", "30", "--progress", "json"], in: folder.url, signal: SIGINT) {
            try folder.listing().count >= 3
        }
        #expect(run.wasRunning)
        #expect(run.status == 130)
        #expect(run.stderr.hasSuffix("{\"event\":\"error\",\"message\":\"interrupted; no output was written\"}\n"))
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }
}
