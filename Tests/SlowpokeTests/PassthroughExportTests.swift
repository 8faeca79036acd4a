import Foundation
import TestSupport
import Testing

/// A folder with `clip` (a copy of a media/ clip) opened, and optional edits applied.
func project(_ clip: String, as name: String = "clip.mp4", edits: [[String]] = []) throws -> TemporaryFolder {
    let folder = try TemporaryFolder("export")
    try folder.copy(media: clip, as: name)
    let opened = try slowpoke("open", name, in: folder)
    #expect(opened.status == 0, "\(opened.stderr)")
    for edit in edits {
        let result = try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url)
        #expect(result.status == 0, "\(edit): \(result.stderr)")
    }
    return folder
}

/// Per-frame presentation times of a file's video stream, as exact ticks with the time base.
func videoFrames(_ file: URL) throws -> (pts: [Int], timeBase: (Int, Int)) {
    let probe = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_entries", "packet=pts:stream=time_base"])
    let packets = try #require(probe["packets"] as? [[String: Any]])
    let base = try #require((probe["streams"] as? [[String: Any]])?.first?["time_base"] as? String).split(separator: "/").map { Int($0)! }
    return (packets.compactMap { $0["pts"] as? Int }.sorted(), (base[0], base[1]))
}

/// Frame index codes read from decoded gray frames: block i's centre, thresholded. ffmpeg
/// writes only the row of the blocks' centres (`format=gray,crop`: the same pixels as the
/// whole gray picture's row; the whole 1280x720 pictures were some 550 MB a call to write and read).
func frameCodes(_ file: URL, width: Int, height: Int) throws -> [Int] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-frames-\(UUID().uuidString).gray")
    defer { try? FileManager.default.removeItem(at: raw) }
    let block = width / 16, row = min(block / 2, height - 1)
    let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-noautorotate", "-i", file.path, "-map", "0:v:0", "-vsync", "passthrough",
                                                  "-vf", "format=gray,crop=\(width):1:0:\(row)", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw.path])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let data = try Data(contentsOf: raw)
    let frameSize = width
    return stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map { start in
        (0..<16).reduce(0) { code, bit in
            let pixel = data[start + bit * block + block / 2]
            return pixel > 128 ? code | (1 << bit) : code
        }
    }
}

@Suite struct PassthroughExportTests {
    /// The brief's case: 3.2-5.0 s of the 60 fps clip at quarter speed.
    @Test func everyFrameKeptAndRetimedExactly() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "3.2-5.0", "--rate", "0.25"]])
        // --exact: the timeline to the sample (by default fitted to whole AAC frames).
        let result = try slowpoke("export", "--exact", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let out = folder.file("clip-slowpoke.mp4")
        #expect(try folder.listing() == ["clip-slowpoke.mp4", "clip.mp4", "clip.slowpoke"])

        // Every source frame, once, in order.
        let (pts, base) = try videoFrames(out)
        #expect(pts.count == 600)
        #expect(try frameCodes(out, width: 1280, height: 720) == Array(0..<600))

        // Each frame at exactly its mapped time, to within one tick of the output time base.
        for (n, tick) in pts.enumerated() {
            // Source time n/60, mapped: 1x to 3.2 s, 0.25x to 5.0 s, then 1x shifted by 5.4 s.
            let source = Double(n) / 60
            let expected = source < 3.2 ? source : source < 5 ? 3.2 + (source - 3.2) * 4 : source + 5.4
            let actual = Double(tick - pts[0]) * Double(base.0) / Double(base.1)
            #expect(abs(actual - expected) <= Double(base.0) / Double(base.1) + 1e-9, "frame \(n) at \(actual), expected \(expected)")
        }
        // Inside the range, frames are 4/60 s apart.
        let inside = Array(pts[200..<290])
        let steps = Set(zip(inside.dropFirst(), inside).map { $0 - $1 })
        #expect(steps.count == 1)
        #expect(Double(steps.first!) * Double(base.0) / Double(base.1) == 4.0 / 60)

        // Duration 15.4 s; audio 15.4 s within one AAC frame.
        let probe = try TestSupport.ffprobe(out, ["-show_streams", "-show_format"])
        let streams = try #require(probe["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(abs(Double(video["duration"] as! String)! - 15.4) < 1e-6)
        #expect(abs(Double(audio["duration"] as! String)! - 15.4) <= 1024.0 / 48000)
        #expect(audio["codec_name"] as? String == "aac")
        #expect(video["codec_name"] as? String == "h264")
    }

    @Test(arguments: ["clip60.mp4", "clip240.mp4", "rotated.mp4", "ntsc2997.mp4"])
    func outputsDecodeCleanly(clip: String) throws {
        let folder = try project(clip, edits: [["scale", "--range", "0.5-1.5", "--rate", "1/4"]])
        let result = try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("clip-slowpoke.mp4").path, "-f", "null", "-"])
        #expect(check.status == 0)
        #expect(check.stderr == "", "\(clip): \(check.stderr)")
        // The frame count is the source's.
        let source = try videoFrames(TestSupport.media(clip)).pts.count
        #expect(try videoFrames(folder.file("clip-slowpoke.mp4")).pts.count == source)
    }

    @Test func rotationAndColourSurvive() throws {
        for clip in ["rotated.mp4", "clip60.mp4"] {
            let folder = try project(clip, edits: [["scale", "--range", "1-2", "--rate", "0.5"]])
            #expect(try slowpoke("export", "--progress", "none", in: folder).status == 0)
            let fields = ["-select_streams", "v:0", "-show_streams"]
            let before = try #require((try TestSupport.ffprobe(TestSupport.media(clip), fields)["streams"] as? [[String: Any]])?.first)
            let after = try #require((try TestSupport.ffprobe(folder.file("clip-slowpoke.mp4"), fields)["streams"] as? [[String: Any]])?.first)
            for key in ["color_primaries", "color_transfer", "color_space", "color_range", "sample_aspect_ratio", "width", "height", "profile"] {
                #expect("\(before[key] ?? "nil")" == "\(after[key] ?? "nil")", "\(clip): \(key)")
            }
            let rotation = { (s: [String: Any]) in (s["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first }
            #expect(rotation(before) == rotation(after), "\(clip): rotation")
            let tags = { (s: [String: Any]) in s["tags"] as? [String: String] ?? [:] }
            #expect(tags(before)["language"] == tags(after)["language"])
            #expect(tags(before)["handler_name"] == tags(after)["handler_name"])
        }
    }

    /// Flashes (video) and beeps (audio) still line up to within 1 ms, inside the slowed range
    /// too: the renderer starts a stretched piece at each sharp onset, so the spectral
    /// stretch cannot smear the beep ahead of its flash (unsplit, Rubber Band R3 starts it
    /// about 28 ms early).
    @Test func flashesAndBeepsStayTogether() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "3.2-5.0", "--rate", "0.25"]])
        #expect(try slowpoke("export", "--progress", "none", in: folder).status == 0)
        let out = folder.file("clip-slowpoke.mp4")
        let codes = try frameCodes(out, width: 1280, height: 720)
        let (pts, base) = try videoFrames(out)
        // The flash starts at frames 60k: their output times.
        var flashes: [Double] = []
        for (i, code) in codes.enumerated() where code % 60 == 0 {
            flashes.append(Double(pts[i] - pts[0]) * Double(base.0) / Double(base.1))
        }
        #expect(flashes.count == 10)
        let samples = try TestSupport.decodeAudio(out)
        let beeps = Signals.onsets(samples, threshold: 0.05, quiet: 4800).map { Double($0) / 48000 }
        #expect(beeps.count == 10)
        for (flash, beep) in zip(flashes, beeps) {
            #expect(abs(flash - beep) <= 0.001, "flash at \(flash) s, beep at \(beep) s")
        }
    }

    @Test func anUntouchedTimelineCopiesTheAudio() throws {
        let folder = try project("clip60.mp4")
        let result = try slowpoke("export", "-o", "same.mov", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("audio copied"))
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("same.mov").path, "-f", "null", "-"])
        #expect(check.stderr == "")
        #expect(try videoFrames(folder.file("same.mov")).pts.count == 600)
    }

    @Test func keyframeCutsHappenAtKeyframesAndSaySo() throws {
        // Keyframes are one second apart and there are no B-frames: the removal of 2.5-4.5 s
        // starts exactly at 2.5 s and resumes at the keyframe at 5 s.
        let folder = try project("clip60.mp4", edits: [["remove", "--range", "2.5-4.5"]])
        // --exact: the timeline to the sample (by default fitted to whole AAC frames).
        let result = try slowpoke("export", "--exact", "--keyframe-cuts", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: passthrough cuts where the copied frames can be decoded: the removal of source 2.5-4.5 became 2.5-5"), "\(result.stderr)")
        let codes = try frameCodes(folder.file("clip-slowpoke.mp4"), width: 1280, height: 720)
        #expect(codes == Array(0..<150) + Array(300..<600))
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("clip-slowpoke.mp4").path, "-f", "null", "-"])
        #expect(check.stderr == "")
    }

    @Test func cutsAreFrameExactAndSayWhatWasReencoded() throws {
        // The removal of 2.5-4.5 s resumes at 4.5 s, mid-GOP: the 30 frames up to the keyframe
        // at 5 s are re-encoded, the rest copied (--exact: the cut where the document has it, not
        // fitted to the audio's frames).
        let folder = try project("clip60.mp4", edits: [["remove", "--range", "2.5-4.5"]])
        let result = try slowpoke("export", "--exact", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("keyframe"), "\(result.stderr)")
        #expect(result.stdout.contains("30 frames re-encoded at 1 cut; 450 copied"), "\(result.stdout)")
        let codes = try frameCodes(folder.file("clip-slowpoke.mp4"), width: 1280, height: 720)
        #expect(codes == Array(0..<150) + Array(270..<600))
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("clip-slowpoke.mp4").path, "-f", "null", "-"])
        #expect(check.stderr == "")
    }
}

@Suite struct ExportSafetyTests {
    @Test func anExistingOutputIsKeptUnlessForced() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "1-2", "--rate", "0.5"]])
        try Data("precious".utf8).write(to: folder.file("clip-slowpoke.mp4"))
        let refused = try slowpoke("export", in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasSuffix("clip-slowpoke.mp4 already exists; use --force to replace it\n"))
        #expect(try Data(contentsOf: folder.file("clip-slowpoke.mp4")) == Data("precious".utf8))
        #expect(try slowpoke("export", "--force", "--progress", "none", in: folder).status == 0)
    }

    @Test func theInputIsNeverTheOutput() throws {
        let folder = try project("clip60.mp4")
        let before = try Data(contentsOf: folder.file("clip.mp4"))
        let result = try slowpoke("export", "-o", "clip.mp4", "--force", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("clip.mp4 is the input; choose another output name\n"))
        #expect(try Data(contentsOf: folder.file("clip.mp4")) == before)
    }

    @Test func anUnwritableFolderFailsCleanly() throws {
        let folder = try project("clip60.mp4")
        let result = try slowpoke("export", "-o", "/proc/clip.mp4", "--progress", "none", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("slowpoke: error: cannot write /proc/clip.mp4"), "\(result.stderr)")
        let missing = try slowpoke("export", "-o", "nowhere/clip.mp4", in: folder)
        #expect(missing.stderr.contains("does not exist"))
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }

    @Test func anInterruptedExportLeavesNothing() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "0-10", "--rate", "1/32"]])
        // Stop it with SIGTERM once its temporary output exists.
        let run = try TestSupport.interrupt(["export", "--progress", "json"], in: folder.url, signal: SIGTERM) {
            try folder.listing().count >= 3
        }
        #expect(run.wasRunning)
        #expect(run.status == 130)
        #expect(run.stderr.hasSuffix("{\"event\":\"error\",\"message\":\"interrupted; no output was written\"}\n"))
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }

    @Test func aTruncatedSourceIsReported() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "1-2", "--rate", "0.5"]])
        // Cut the movie short after opening it: the document notices the change.
        let data = try Data(contentsOf: folder.file("clip.mp4"))
        try data.prefix(data.count / 2).write(to: folder.file("clip.mp4"))
        let result = try slowpoke("export", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("has changed since clip.slowpoke was made"))
        // Opened truncated, it exports the readable part and says what is missing.
        let fresh = try TemporaryFolder("export")
        try data.prefix(45_000).write(to: fresh.file("cut.mp4"))
        #expect(try slowpoke("open", "cut.mp4", in: fresh).status == 0)
        let exported = try slowpoke("export", "--progress", "none", in: fresh)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("warning: cut.mp4 lists 600 video frames but only 301 could be read; it is truncated or damaged"), "\(exported.stderr)")
        let frames = try videoFrames(fresh.file("cut-slowpoke.mp4")).pts.count
        #expect(frames == 301)
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", fresh.file("cut-slowpoke.mp4").path, "-f", "null", "-"])
        #expect(check.stderr == "")
        #expect(try fresh.listing() == ["cut-slowpoke.mp4", "cut.mp4", "cut.slowpoke"])
    }

    /// A gap at the end lasts to the timeline's end (a black picture where frames can be
    /// re-encoded, else the last frame held; the video once stopped 2 s before the audio).
    @Test func aTrailingGapHoldsTheLastFrame() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("insert-gap", "--at", "end", "--duration", "2", in: folder).status == 0)
        let total = try json(try slowpoke("info", "--json", in: folder).stdout)["duration"] as? String
        let export = try slowpoke("export", "-o", "gap.mp4", "--progress", "none", in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0",
                                                     folder.file("gap.mp4").path]).stdout
        let video = probe.split(separator: "\n").first { $0.hasPrefix("video,") }.flatMap { Double($0.split(separator: ",")[1]) }
        let expected = total.flatMap(Double.init) ?? .nan
        #expect(video.map { abs($0 - expected) < 0.001 } == true, "video \(String(describing: video)) s, timeline \(String(describing: total))")
    }
}
