import Foundation
import TestSupport
import Testing

/// A folder with `name` (4 s of 160x120 at `fps`, H.264 with B-frames, a tone) and its document.
private func folderWithClip(fps: Int, name: String = "clip.mp4", extra: [String] = []) throws -> TemporaryFolder {
    let folder = try TemporaryFolder("slomo")
    let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=\(fps)",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4", "-c:v", "libx264", "-preset", "ultrafast",
        "-bf", "2", "-g", "\(fps)", "-pix_fmt", "yuv420p", "-c:a", "aac"] + extra + [folder.file(name).path])
    try #require(made.status == 0, "\(made.stderr)")
    let opened = try slowpoke("open", name, in: folder)
    try #require(opened.status == 0, "\(opened.stderr)")
    return folder
}

/// Writes an Apple-shaped slow-motion sidecar with Python's plistlib (independent of the
/// Foundation parser under test): an XML plist whose adjustmentData is a binary plist.
private func writeSidecar(_ file: URL, rate: Double, start: (Int, Int), duration: (Int, Int)) throws {
    let script = """
        import plistlib, sys
        def t(v, s): return {"value": v, "timescale": s, "flags": 1, "epoch": 0}
        inner = plistlib.dumps({"slowMotion": {"rate": \(rate), "regions": [{"timeRange": {"start": t(\(start.0), \(start.1)), "duration": t(\(duration.0), \(duration.1))}}]}}, fmt=plistlib.FMT_BINARY)
        outer = {"adjustmentBaseVersion": 0, "adjustmentData": inner, "adjustmentEditorBundleID": "com.apple.mobileslideshow",
                 "adjustmentFormatIdentifier": "com.apple.video.slomo", "adjustmentFormatVersion": "1.1"}
        open(sys.argv[1], "wb").write(plistlib.dumps(outer, fmt=plistlib.FMT_XML))
        """
    let result = try TestSupport.tool("python3", ["-c", script, file.path])
    try #require(result.status == 0, "\(result.stderr)")
}

/// The video track's segments from `info --json`: (source start, source end, rate) as text.
private func segments(_ folder: TemporaryFolder) throws -> [(start: String, end: String, rate: String)] {
    let info = try json(try slowpoke("info", "--json", in: folder).stdout)
    let segments = ((info["tracks"] as? [[String: Any]])?.first?["segments"] as? [[String: Any]]) ?? []
    return segments.compactMap { segment in
        guard let source = segment["source"] as? [String: Any], let start = source["start"] as? String,
              let duration = source["duration"] as? String, let rate = segment["rate"] as? String else { return nil }
        let end = (Double(start) ?? 0) + (Double(duration) ?? 0)
        return (start, String(format: "%g", end), rate)
    }
}

/// `slowpoke slomo` end to end (issue 24, part 3), on clips generated at 240, 120 and 60 fps.
@Suite struct SlomoCommandTests {
    /// Photos' defaults: 15% to 85% of the 4 s clip (0.6-3.4 s) with half-second ramps inside
    /// it, so 1.1-2.9 s plays at the rate; one edit, one undo; passthrough keeps every frame.
    @Test(arguments: [(240, "0.125", "0.125x"), (120, "0.25", "0.25x")])
    func photosDefaultsSlowTheMiddleOfTheClip(fps: Int, rate: String, shown: String) throws {
        let folder = try folderWithClip(fps: fps)
        let result = try slowpoke("slomo", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("slow motion 0.6-3.4 to "), "\(result.stdout)")
        #expect(result.stdout.contains("(\(shown), ramps of 0.5 s in and out), from Photos' defaults for \(fps) fps; the timeline is now"), "\(result.stdout)")
        let rows = try segments(folder)
        #expect(rows.contains { $0.start == "1.1" && $0.end == "2.9" && $0.rate == rate }, "\(rows)")
        // 1x, 8 ramp steps falling, the slow middle, 8 rising, 1x.
        #expect(rows.count == 19 && rows.first?.rate == "1" && rows.last?.rate == "1", "\(rows)")
        #expect(rows.first?.end == "0.6" && rows.last?.start == "3.4")
        let history = try slowpoke("history", in: folder).stdout
        #expect(history.split(separator: "\n").count == 1)
        let document = try json(String(decoding: try Data(contentsOf: folder.file("clip.slowpoke")), as: UTF8.self))
        #expect(document["version"] as? Int == 4)

        let exported = try slowpoke("export", "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let source = try TestSupport.frameMD5s(folder.file("clip.mp4")).md5s
        let copied = try TestSupport.frameMD5s(folder.file("out.mp4"))
        #expect(source.count == 4 * fps && copied.md5s == source && copied.errors.isEmpty)

        let undone = try slowpoke("undo", in: folder)
        #expect(undone.stdout.hasSuffix("; the timeline is now 4 s\n"), "\(undone.stdout)")
        #expect(try segments(folder).count == 1)
    }

    /// The result is an ordinary timeline: `--fps 30` flattens a 120 fps slow motion to
    /// round(duration × 30) frames, and a 440 Hz tone keeps its pitch through the slow middle.
    @Test func constantRateExportPlaysTheSlowMotion() throws {
        let folder = try folderWithClip(fps: 120)
        try #require(try slowpoke("slomo", in: folder).status == 0)
        let info = try json(try slowpoke("info", "--json", in: folder).stdout)
        let duration = try #require((info["duration"] as? String).flatMap { text -> Double? in
            let parts = text.split(separator: "/").compactMap { Double($0) }
            return parts.count == 2 ? parts[0] / parts[1] : Double(text)
        })
        // --exact: the document's own length (by default the ramps are fitted to whole AAC
        // frames, which moves it by a few milliseconds).
        let exported = try slowpoke("export", "--exact", "--progress", "none", "--fps", "30", "--preset", "ultrafast", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let frames = try TestSupport.frameMD5s(folder.file("out.mp4"))
        #expect(frames.errors.isEmpty && frames.md5s.count == Int((duration * 30).rounded()), "\(frames.md5s.count) frames for \(duration) s")
        let audio = try TestSupport.decodeAudio(folder.file("out.mp4"))
        let f = Signals.dominantFrequency(audio, from: Int(3.0 * 48000), count: 65536)
        #expect(abs(f - 440) / 440 < 0.01, "\(f) Hz in the slow middle")
    }

    /// A sidecar beside the movie gives the region (1 s for 2 s) and the rate (1/4, though the
    /// clip is 240 fps); --range and --rate override it.
    @Test func theSidecarsRegionAndRateAreUsed() throws {
        let folder = try folderWithClip(fps: 240)
        try writeSidecar(folder.file("clip.AAE"), rate: 0.25, start: (600, 600), duration: (1200, 600))
        let result = try slowpoke("slomo", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("slow motion 1-3 to "), "\(result.stdout)")
        #expect(result.stdout.contains("(0.25x, ramps of 0.5 s in and out), from clip.AAE;"), "\(result.stdout)")
        #expect(try segments(folder).contains { $0.start == "1.5" && $0.end == "2.5" && $0.rate == "0.25" })

        #expect(try slowpoke("undo", in: folder).status == 0)
        let given = try slowpoke("slomo", "--range", "0.5-3.5", "--rate", "1/16", in: folder)
        #expect(given.stdout.contains("(0.0625x, ramps of 0.5 s in and out), from the range and rate given;"), "\(given.stdout)\(given.stderr)")
        #expect(try segments(folder).contains { $0.start == "1" && $0.end == "3" && $0.rate == "0.0625" })
        #expect(try slowpoke("undo", in: folder).status == 0)
        let rateOnly = try slowpoke("slomo", "--rate", "1/2", in: folder)
        #expect(rateOnly.stdout.contains("from clip.AAE and the rate given;"), "\(rateOnly.stdout)")
        #expect(try segments(folder).contains { $0.start == "1.5" && $0.end == "2.5" && $0.rate == "0.5" })
    }

    /// A sidecar region that runs past the movie's end (3-10 s of a 4 s clip) is clipped to
    /// the end, and the output says so.
    @Test func aRegionPastTheEndIsClippedAndSaid() throws {
        let folder = try folderWithClip(fps: 240)
        try writeSidecar(folder.file("clip.AAE"), rate: 0.25, start: (1800, 600), duration: (4200, 600))
        let result = try slowpoke("slomo", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("from clip.AAE (its region 3-10 clipped to the movie's end at"), "\(result.stdout)")
    }

    /// A sidecar's rate outside 1/32-32 and a negative start are named with the sidecar.
    @Test func aSidecarsOddValuesAreNamedWithIt() throws {
        let folder = try folderWithClip(fps: 240)
        try writeSidecar(folder.file("clip.AAE"), rate: 0.01, start: (600, 600), duration: (1200, 600))
        let slow = try slowpoke("slomo", in: folder)
        #expect(slow.status != 0 && slow.stderr.contains("/clip.AAE is not a slow-motion sidecar slowpoke can read (its slow-motion rate 0.01 is outside the supported 0.03125 to 32)"), "\(slow.stderr)")
        try writeSidecar(folder.file("clip.AAE"), rate: 0.25, start: (-600, 600), duration: (1200, 600))
        let negative = try slowpoke("slomo", in: folder)
        #expect(negative.status != 0 && negative.stderr.contains("its region's start is negative (-1 s)"), "\(negative.stderr)")
    }

    @Test(arguments: [
        ("not a plist at all", "it is not a property list"),
        ("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.photo</string></dict></plist>",
         "its adjustmentFormatIdentifier is com.apple.photo, not com.apple.video.slomo: it is not a slow-motion adjustment"),
        ("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.video.slomo</string><key>adjustmentData</key><data>aGVsbG8=</data></dict></plist>",
         "its adjustmentData is not a property list dictionary"),
    ])
    func anUnreadableSidecarIsAnErrorNamingItAndTheDocumentIsUnchanged(content: String, reason: String) throws {
        let folder = try folderWithClip(fps: 240)
        try Data(content.utf8).write(to: folder.file("clip.AAE"))
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try slowpoke("slomo", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("slowpoke: error: /") && result.stderr.contains("/clip.AAE is not a slow-motion sidecar slowpoke can read (\(reason)); the document was left unchanged. Move it away to use Photos' defaults, or give both --range and --rate\n"), "\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }

    @Test func aSixtyFrameClipIsRefused() throws {
        let folder = try folderWithClip(fps: 60)
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try slowpoke("slomo", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: the video plays at 60 fps: not a high-frame-rate clip (slow motion needs 85 fps or more: 0.25x from 85 fps, 0.125x from 210); use `scale` or `ramp` to slow it anyway\n")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }

    /// `info` shows Apple's playback-intent key when the movie has it (written by ffmpeg's
    /// mov muxer as an mdta key, checked with ffprobe first), and nothing when it has not.
    @Test(arguments: ["clip.mov", "clip.mp4"])
    func infoShowsTheFullFrameRatePlaybackIntent(name: String) throws {
        let key = "com.apple.quicktime.full-frame-rate-playback-intent"
        let folder = try folderWithClip(fps: 120, name: name, extra: ["-movflags", "use_metadata_tags", "-metadata", "\(key)=1"])
        let tags = try TestSupport.ffprobe(folder.file(name), ["-show_entries", "format_tags", "-show_format"])
        #expect(((tags["format"] as? [String: Any])?["tags"] as? [String: Any])?[key] as? String == "1")
        let info = try slowpoke("info", in: folder).stdout
        #expect(info.contains("\n  \(key) = 1\n"), "\(info)")

        let plain = try folderWithClip(fps: 120, name: name)
        #expect(!(try slowpoke("info", in: plain).stdout.contains(key)))
    }
}
