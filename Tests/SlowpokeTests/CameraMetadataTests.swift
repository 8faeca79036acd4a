import Foundation
import Testing
import TestSupport

/// Camera files II (issue 51): the global `timecode` key (as cameras and FFmpeg write it) is
/// retimed to the first frame with no stale copy left, Android's keys reach every movie output,
/// `info` shows the capture rate, and `slomo` knows a 240 fps capture stored for 30 fps.
@Suite struct CameraMetadataTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    func cameraMovie(_ folder: TemporaryFolder) throws -> URL {
        let movie = folder.file("cam.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=4", "-f", "lavfi", "-i", "sine=d=4",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-timecode", "01:00:00:00",
                                                   "-movflags", "use_metadata_tags", "-metadata", "com.android.capture.fps=240.000000",
                                                   "-metadata", "com.android.version=13", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// Every `timecode` tag (streams and format) and the Android keys of `file`, lowercased.
    func tags(_ file: URL) throws -> (timecodes: [String], android: [String: String]) {
        let probe = try TestSupport.ffprobe(file, ["-show_entries", "format_tags:stream_tags"])
        var all: [[String: Any]] = (probe["streams"] as? [[String: Any]] ?? []).compactMap { $0["tags"] as? [String: Any] }
        if let format = (probe["format"] as? [String: Any])?["tags"] as? [String: Any] { all.append(format) }
        var timecodes: [String] = [], android: [String: String] = [:]
        for tags in all {
            for (key, value) in tags {
                let name = key.lowercased()
                if name == "timecode", let text = value as? String { timecodes.append(text) }
                if name.hasPrefix("com.android."), let text = value as? String { android[name] = text }
            }
        }
        return (timecodes, android)
    }

    @Test func timecodeAndAndroidKeysSurviveEveryContainer() throws {
        let folder = try TemporaryFolder("camera-keys")
        _ = try cameraMovie(folder)
        for edit in [["open", "cam.mp4"], ["remove", "--range", "0-1.55"]] { #expect(try slowpoke(edit, in: folder).status == 0) }
        var checked = 0
        for (ext, fps) in [("mp4", nil), ("mov", nil), ("mkv", nil), ("mp4", "30")] as [(String, String?)] {
            let name = "out-\(fps ?? "copy").\(ext)"
            let result = try slowpoke(["export", "-o", name, "--progress", "none"] + (fps.map { ["--fps", $0, "--preset", "ultrafast"] } ?? []), in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let found = try tags(folder.file(name))
            // The first frame shown is source frame 47 (1.5667 s): 01:00:01:17 at 30 fps.
            #expect(!found.timecodes.isEmpty && found.timecodes.allSatisfy { $0 == "01:00:01:17" }, "\(name): \(found.timecodes)")
            #expect(found.android == ["com.android.capture.fps": "240.000000", "com.android.version": "13"], "\(name): \(found.android)")
            checked += 1
        }
        #expect(checked == 4)
    }

    @Test func aCaptureStoredSlowerIsKnown() throws {
        let folder = try TemporaryFolder("camera-capture")
        _ = try cameraMovie(folder)
        #expect(try slowpoke(["open", "cam.mp4"], in: folder).status == 0)
        let info = try slowpoke(["info"], in: folder)
        #expect(info.stdout.contains("captured at 240 fps, stored for 30 fps playback: it plays at 0.125x the speed it was filmed"), "\(info.stdout)")
        let slomo = try slowpoke(["slomo"], in: folder)
        #expect(slomo.status == 1 && slomo.stderr.contains("was captured at 240 fps and is stored for 30 fps playback: it already plays at 0.125x the speed it was filmed"), "\(slomo.stderr)")
        let realTime = try slowpoke(["slomo", "--real-time"], in: folder)
        #expect(realTime.status == 0 && realTime.stdout.contains("the timeline is now 0.5 s"), "\(realTime.stdout)\(realTime.stderr)")
    }

    /// The 240-for-30 clip remuxed to Matroska (whose tag names are capitals) is known alike;
    /// after `slomo --real-time`, `slomo` slows its middle back to 1/8 of the speed it was
    /// filmed (its stored speed), as for a 240 fps clip, and a second `--real-time` is refused.
    @Test func aStoredSlowClipGetsASlowSection() throws {
        let folder = try TemporaryFolder("camera-capture-section")
        let movie = try cameraMovie(folder)
        let remuxed = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", movie.path, "-c", "copy", folder.file("cam.mkv").path])
        #expect(remuxed.status == 0, "\(remuxed.stderr)")
        #expect(try slowpoke(["open", "cam.mkv"], in: folder).status == 0)
        let info = try slowpoke(["info"], in: folder)
        #expect(info.stdout.contains("captured at 240 fps, stored for 30 fps playback"), "\(info.stdout)")
        #expect(try slowpoke(["slomo", "--real-time"], in: folder).status == 0)
        let again = try slowpoke(["slomo", "--real-time"], in: folder)
        #expect(again.status == 1 && again.stderr.contains("the timeline already plays cam.mkv at the speed it was filmed (8x its stored speed)"), "\(again.stderr)")
        let slomo = try slowpoke(["slomo"], in: folder)
        #expect(slomo.status == 0 && slomo.stdout.contains("(0.125x, ramps of") && slomo.stdout.contains("from Photos' defaults for 240 fps"),
                "\(slomo.stdout)\(slomo.stderr)")
        let export = try slowpoke(["export", "--exact", "-o", "out.mkv", "--progress", "none"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        // Every source frame kept; before the section 1/240 s apart (real speed), inside its
        // middle (15% to 85% of the 0.5 s real-time timeline less the ramps) 1/30 s apart.
        let frames = try TestSupport.ffprobe(folder.file("out.mkv"), ["-select_streams", "v", "-show_entries", "frame=pts_time"])["frames"] as? [[String: Any]] ?? []
        let times = frames.compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
        #expect(times.count == 120)
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        let fast = steps.prefix(15), slow = zip(times.dropFirst(), steps).filter { $0.0 > 0.35 && $0.0 < 1.6 }.map(\.1)
        #expect(fast.count == 15 && fast.allSatisfy { abs($0 - 1.0 / 240) < 0.0011 }, "\(Array(fast))")
        #expect(slow.count >= 30 && slow.allSatisfy { abs($0 - 1.0 / 30) < 0.0011 }, "\(slow)")
    }
}
