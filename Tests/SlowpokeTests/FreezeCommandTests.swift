import Foundation
import TestSupport
import Testing

/// A folder with `clip.mp4`: 6 s of 320x240 at 60 fps (H.264 with B-frames, a keyframe every
/// second; every frame differs), a steady 440 Hz tone, and its document.
private func folderWithToneClip() throws -> TemporaryFolder {
    let folder = try TemporaryFolder("freeze")
    let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=60",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6", "-c:v", "libx264", "-preset", "ultrafast",
        "-bf", "2", "-g", "60", "-pix_fmt", "yuv420p", "-c:a", "aac", folder.file("clip.mp4").path])
    try #require(made.status == 0, "\(made.stderr)")
    let opened = try slowpoke("open", "clip.mp4", in: folder)
    try #require(opened.status == 0, "\(opened.stderr)")
    return folder
}

/// `slowpoke freeze` end to end (issue 24, part 2): one edit and one undo; passthrough keeps
/// every frame and lengthens the held one; `--fps` repeats it; the audio is silent over it.
@Suite struct FreezeCommandTests {
    @Test func oneFreezeIsOneEditAndOneUndo() throws {
        let folder = try folderWithDocument()
        let before = try json(try slowpoke("info", "--json", in: folder).stdout)
        let frozen = try slowpoke("freeze", "--at", "2", "--duration", "1.5", in: folder)
        #expect(frozen.status == 0 && frozen.stdout == "freeze the frame at 2 s for 1.5 s; the timeline is now 11.5 s\n", "\(frozen.stdout)\(frozen.stderr)")
        let history = try slowpoke("history", in: folder).stdout
        #expect(history.split(separator: "\n").count == 1 && history.contains("freeze the frame at 2 s for 1.5 s"))
        let info = try slowpoke("info", in: folder).stdout
        #expect(info.contains("  2   2 - 3.5       2 (held)   freeze\n") && info.contains("  2   2 - 3.5       (gap)\n"), "\(info)")
        let document = try json(String(decoding: try Data(contentsOf: folder.file("clip.slowpoke")), as: UTF8.self))
        #expect(document["version"] as? Int == 4)

        let undone = try slowpoke("undo", in: folder)
        #expect(undone.stdout == "undid: freeze the frame at 2 s for 1.5 s; the timeline is now 10 s\n")
        let restored = try json(try slowpoke("info", "--json", in: folder).stdout)
        func canonical(_ value: Any?) throws -> Data { try JSONSerialization.data(withJSONObject: value ?? [], options: .sortedKeys) }
        #expect(try canonical(restored["tracks"]) == canonical(before["tracks"]))
    }

    @Test(arguments: [
        (["--at", "2", "--duration", "0"], "slowpoke: error: a freeze needs a positive --duration, not 0 s\n"),
        (["--at", "10", "--duration", "1"], "slowpoke: error: --at 10 is not before the end of the timeline at 10 s; a freeze holds a picture that is on screen (use an earlier time)\n"),
        (["--at", "end", "--duration", "1"], "slowpoke: error: --at end is not before the end of the timeline at 10 s; a freeze holds a picture that is on screen (use an earlier time)\n"),
    ])
    func badInputIsRefusedAndLeavesTheDocumentUnchanged(arguments: [String], message: String) throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try TestSupport.run(TestSupport.slowpoke, ["freeze"] + arguments, in: folder.url)
        #expect(result.status != 0)
        #expect(result.stderr == message, "\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }

    /// Passthrough: all 360 frames, bit for bit, in order; the frame at 2 s starts at 2 s and the
    /// next one at 3.5 + 1/60 s (it shows for its own 1/60 s plus the 1.5 s hold); the movie
    /// lasts 7.5 s; the tone is silent during the hold and there around it.
    @Test func passthroughLengthensTheHeldFrameAndSilencesTheAudio() throws {
        let folder = try folderWithToneClip()
        #expect(try slowpoke("freeze", "--at", "2", "--duration", "1.5", in: folder).status == 0)
        // --exact: the hold's own length (by default it is fitted to whole AAC frames).
        let exported = try slowpoke("export", "--exact", "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let out = folder.file("out.mp4")

        let source = try TestSupport.frameMD5s(folder.file("clip.mp4"))
        let copied = try TestSupport.frameMD5s(out)
        #expect(source.md5s.count == 360 && copied.errors.isEmpty)
        #expect(copied.md5s == source.md5s, "every frame kept, unchanged, in order")

        let probe = try TestSupport.ffprobe(out, ["-select_streams", "v:0", "-show_entries", "packet=pts_time:format=duration", "-show_packets", "-show_format"])
        let pts = ((probe["packets"] as? [[String: Any]]) ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
        try #require(pts.count == 360)
        #expect(abs(pts[120] - 2) < 1e-4 && abs(pts[121] - (3.5 + 1.0 / 60)) < 1e-4, "\(pts[119...122])")
        let gaps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        #expect(gaps.enumerated().allSatisfy { $0.offset == 120 || abs($0.element - 1.0 / 60) < 1e-4 }, "only the held frame lasts longer")
        let length = ((probe["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? 0
        #expect(abs(length - 7.5) < 0.03, "\(length)")

        let audio = try TestSupport.decodeAudio(out)
        func level(_ a: Double, _ b: Double) -> Float { Signals.rms(audio[Int(a * 48000)..<Int(b * 48000)]) }
        #expect(level(2.05, 3.45) < 1e-3, "silent during the hold: \(level(2.05, 3.45))")
        #expect(level(0.5, 1.9) > 0.05 && level(3.6, 5) > 0.05, "the tone before and after: \(level(0.5, 1.9)), \(level(3.6, 5))")
        #expect(abs(Double(audio.count) / 48000 - 7.5) < 0.03)
    }

    /// Freezing inside a frame holds that frame, and freezing inside the last frame holds it
    /// to the end: the held frame lasts its own 1/60 s plus the hold, every frame is kept.
    @Test(arguments: [("2.005", 120), ("5.99", 359), ("0", 0)])
    func passthroughHoldsTheFrameOnScreenAtTheTime(at: String, held: Int) throws {
        let folder = try folderWithToneClip()
        #expect(try slowpoke("freeze", "--at", at, "--duration", "1.5", in: folder).status == 0)
        // --exact: the hold's own length (by default it is fitted to whole AAC frames).
        let exported = try slowpoke("export", "--exact", "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let out = folder.file("out.mp4")
        #expect(try TestSupport.frameMD5s(out).md5s == TestSupport.frameMD5s(folder.file("clip.mp4")).md5s)
        let probe = try TestSupport.ffprobe(out, ["-select_streams", "v:0", "-show_entries", "packet=pts_time:format=duration", "-show_packets", "-show_format"])
        let pts = ((probe["packets"] as? [[String: Any]]) ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
        try #require(pts.count == 360)
        #expect(abs(pts[held] - Double(held) / 60) < 1e-4, "\(pts[held])")
        if held + 1 < pts.count {
            #expect(abs(pts[held + 1] - pts[held] - (1.0 / 60 + 1.5)) < 1e-4, "\(pts[held + 1] - pts[held])")
        }
        let length = ((probe["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? 0
        #expect(abs(length - 7.5) < 0.03, "\(length)")
    }

    /// A subtitle cue on screen at the held time stays on screen through the hold (1-3 s of
    /// source becomes 1-4.5 s), and a chapter boundary after it moves by the hold (2.5 → 4 s).
    @Test func cuesAndChaptersFollowTheHold() throws {
        let folder = try folderWithToneClip()
        try Data("1\n00:00:01,000 --> 00:00:03,000\nhello\n".utf8).write(to: folder.file("cues.srt"))
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2500\ntitle=one\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2500\nEND=6000\ntitle=two\n".utf8)
            .write(to: folder.file("chapters.txt"))
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("clip.mp4").path, "-i", folder.file("cues.srt").path,
            "-i", folder.file("chapters.txt").path, "-map", "0", "-map", "1", "-map_chapters", "2", "-c", "copy", "-c:s", "mov_text",
            folder.file("subs.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("freeze", "subs.mp4", "--at", "2", "--duration", "1.5", in: folder).status == 0)
        // --exact: the hold's own length (by default it is fitted to whole AAC frames).
        let exported = try slowpoke("export", "subs.slowpoke", "--exact", "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let probe = try TestSupport.ffprobe(folder.file("out.mp4"), ["-select_streams", "s", "-show_entries", "packet=pts_time,duration_time:chapter=start_time,end_time",
                                                                  "-show_packets", "-show_chapters"])
        let cues = ((probe["packets"] as? [[String: Any]]) ?? []).compactMap { p -> (Double, Double)? in
            guard let start = (p["pts_time"] as? String).flatMap(Double.init), let length = (p["duration_time"] as? String).flatMap(Double.init) else { return nil }
            return (start, length)
        }
        #expect(cues.contains { abs($0.0 - 1) < 1e-3 && abs($0.1 - 3.5) < 1e-3 }, "\(cues)")
        let chapters = (probe["chapters"] as? [[String: Any]]) ?? []
        let bounds = chapters.compactMap { ($0["end_time"] as? String).flatMap(Double.init) }
        #expect(bounds.count == 2 && abs(bounds[0] - 4) < 1e-3, "\(chapters)")
    }

    /// `--fps 60` (lossless, so decoded frames can be compared with the source's): the held
    /// frame repeats 91 times (2 s to 3.5 s), the rest are the source's frames in order.
    @Test func constantRateRepeatsTheHeldFrame() throws {
        let folder = try folderWithToneClip()
        #expect(try slowpoke("freeze", "--at", "2", "--duration", "1.5", in: folder).status == 0)
        let exported = try slowpoke("export", "--progress", "none", "--fps", "60", "--crf", "0", "--preset", "ultrafast", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let source = try TestSupport.frameMD5s(folder.file("clip.mp4")).md5s
        let frames = try TestSupport.frameMD5s(folder.file("out.mp4")).md5s
        try #require(source.count == 360)
        #expect(frames.count == 450, "7.5 s at 60 fps")
        let expected = Array(source[..<120]) + Array(repeating: source[120], count: 91) + Array(source[121...])
        #expect(frames == expected)
        #expect(frames.count { $0 == source[120] } == 91)
    }

    /// A long hold among B-frames after a 0.37x section: exact, the frames would need 1/568320 s
    /// ticks, and the frame decoded before the held one but shown after the hold would sit
    /// 600 s after its decode time, beyond the 2^28 ticks past which libavformat drops every
    /// composition offset of an mp4 (frames then shown in decode order, two lost). The export
    /// rounds to a coarser timescale instead, says so, and every frame plays in order.
    @Test func aLongHoldAmongBFramesStaysReadable() throws {
        let folder = try TemporaryFolder("long-hold")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=10",
            "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-b-pyramid", "normal", "-g", "15", "-pix_fmt", "yuv420p",
            folder.file("bf.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "bf.mp4", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "5-6", "--rate", "0.37", in: folder).status == 0)
        #expect(try slowpoke("freeze", "--at", "3", "--duration", "600", in: folder).status == 0)
        let export = try slowpoke("export", "--progress", "none", in: folder)
        #expect(export.status == 0 && export.stdout.contains("300 frames") && export.stdout.contains("timestamps rounded to 15360 ticks a second"),
                "\(export.stdout)\(export.stderr)")
        let out = folder.file("bf-slowpoke.mp4").path
        let probe = try TestSupport.tool("ffprobe", ["-v", "warning", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                                     "-of", "csv=p=0", out])
        #expect(!probe.stderr.contains("CTTS invalid"), "\(probe.stderr)")
        // (The first frame's line ends in a comma: its side data.)
        let times = probe.stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(times.count == 300 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times.count) frames")
        // The held frame (3 s) shows for 600 s more; the 0.37x second lasts 1/0.37 s.
        #expect(times.contains { abs($0 - 3) < 0.001 } && times.contains { abs($0 - 603.0333) < 0.001 }, "\(times.prefix(100))")
        #expect(abs((times.last ?? 0) - (609.9667 + 1 / 0.37 - 1)) < 0.002, "last frame at \(times.last ?? 0) s")
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    }

    /// A removal that ends inside a freeze's source moves to the next keyframe, taking the held
    /// frame with it: the hold shows the frame before the cut, and the export says so.
    @Test func aCutThatTakesTheHeldFrameIsSaid() throws {
        let folder = try folderWithToneClip()
        #expect(try slowpoke("freeze", "--at", "2.5", "--duration", "1", in: folder).status == 0)
        // Timeline 3.3-3.9: the hold's last 0.2 s and source 2.5-2.9, whose cut resumes at the
        // keyframe at 3 s.
        #expect(try slowpoke("remove", "--range", "3.3-3.9", in: folder).status == 0)
        let export = try slowpoke("export", "--progress", "none", in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("the freeze at 2.467 s held source 2.5 s, which a removal takes out"), "\(export.stderr)")
        // (The cut starts a frame early, where the B-frames let it: 37/15 s, shown as 2.467.)
        #expect(export.stderr.contains("the removal of source 2.5-2.9 became 2.467-3"), "\(export.stderr)")
    }
}
