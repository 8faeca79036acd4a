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
        #expect(slomo.status == 1 && slomo.stderr.contains("was captured at 240 fps and is stored for 30 fps playback: it already plays at 1/8 of the speed it was filmed"), "\(slomo.stderr)")
        let realTime = try slowpoke(["slomo", "--real-time"], in: folder)
        #expect(realTime.status == 0 && realTime.stdout.contains("the timeline is now 0.5 s"), "\(realTime.stdout)\(realTime.stderr)")
    }
}
