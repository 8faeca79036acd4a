import Foundation
import TestSupport
import Testing

/// A camera's start timecode follows the timeline (issue 36): with the first 2 s removed, a
/// movie reading 10:00:00:00 at 25 fps exports reading 10:00:02:00, as a `tmcd` track in mov and
/// mp4 and the video's TIMECODE tag in mkv, in passthrough and `--fps` alike; drop-frame
/// timecode stays drop-frame. No warning says the timecode is left out.
@Suite struct TimecodeTests {
    // A keyframe every second (30 frames at 29.97), so passthrough too starts 2 s in.
    @Test(arguments: [("25", "10:00:00:00", "10:00:02:00"), ("30000/1001", "01:00:00;00", "01:00:02;00")])
    func timecodeStartsAtTheTimelinesFirstFrame(rate: String, start: String, expected: String) throws {
        let folder = try TemporaryFolder("timecode")
        let movie = folder.file("cam.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(rate):duration=4",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", rate == "25" ? "25" : "30",
                                                   "-timecode", start, movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("cam.slowpoke")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["remove", "--range", "0-2", document.path]).status == 0)
        var checked = 0
        for (ext, options) in [("mov", [] as [String]), ("mp4", []), ("mkv", []), ("mov", ["--fps", "30", "--preset", "ultrafast"]),
                               ("mkv", ["--fps", "30", "--preset", "ultrafast"])] {
            let output = folder.file("out-\(checked).\(ext)")
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path] + options)
            try #require(export.status == 0, "\(export.stderr)")
            #expect(!export.stderr.contains("is not in the export"), ".\(ext) \(options): \(export.stderr)")
            let streams = try TestSupport.ffprobe(output, ["-show_entries", "stream=codec_type,codec_tag_string:stream_tags"])["streams"] as? [[String: Any]] ?? []
            let video = streams.first { $0["codec_type"] as? String == "video" }
            let tags = Dictionary(((video?["tags"] as? [String: String]) ?? [:]).map { ($0.key.lowercased(), $0.value) }) { a, _ in a }
            // With --fps at 30, 2 s are 60 frames whatever the source's rate: the same reading,
            // non-drop (30 fps has no drop-frame form).
            let wanted = options.isEmpty ? expected : expected.replacingOccurrences(of: ";", with: ":")
            #expect(tags["timecode"] == wanted, ".\(ext) \(options): video timecode \(tags["timecode"] ?? "missing")")
            if ext != "mkv" {
                let track = streams.first { $0["codec_tag_string"] as? String == "tmcd" }
                #expect((track?["tags"] as? [String: String])?["timecode"] == wanted, ".\(ext) \(options): \(streams)")
            }
            checked += 1
        }
        #expect(checked == 5)
    }

    /// Matroska's TIMECODE tag as the source (issue 51): the segment's, as `ffmpeg -timecode`
    /// writes it into mkv, or the video track's, as other muxers do. Every export (mkv, mov, mp4;
    /// passthrough and `--fps`) reads the retimed one in every place it holds a timecode, and no
    /// stale copy of the source's.
    @Test(arguments: [("25", "10:00:00:00", "10:00:02:00", false), ("30000/1001", "01:00:00;00", "01:00:02;00", false),
                      ("25", "10:00:00:00", "10:00:02:00", true)])
    func matroskaTimecodeTagIsRetimed(rate: String, start: String, expected: String, onTrack: Bool) throws {
        let folder = try TemporaryFolder("timecode-mkv")
        let movie = folder.file("cam.mkv")
        let tagging = onTrack ? ["-metadata:s:v:0", "TIMECODE=\(start)"] : ["-timecode", start]
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(rate):duration=4",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", rate == "25" ? "25" : "30"]
                                        + tagging + [movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        let probe = try TestSupport.ffprobe(movie, ["-show_entries", "format_tags:stream_tags"])
        #expect("\(probe)".contains(start), "the source carries no TIMECODE tag: \(probe)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("cam.slowpoke")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["remove", "--range", "0-2", document.path]).status == 0)
        var checked = 0
        for (ext, options) in [("mkv", [] as [String]), ("mov", []), ("mp4", []), ("mkv", ["--fps", "30", "--preset", "ultrafast"]),
                               ("mov", ["--fps", "30", "--preset", "ultrafast"])] {
            let output = folder.file("out-\(checked).\(ext)")
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path] + options)
            try #require(export.status == 0, "\(export.stderr)")
            let probe = try TestSupport.ffprobe(output, ["-show_entries", "format_tags:stream_tags"])
            let holders = [probe["format"] as? [String: Any] ?? [:]] + (probe["streams"] as? [[String: Any]] ?? [])
            let timecodes = holders.flatMap { holder in
                ((holder["tags"] as? [String: String]) ?? [:]).filter { $0.key.lowercased() == "timecode" }.map(\.value)
            }
            let wanted = options.isEmpty ? expected : expected.replacingOccurrences(of: ";", with: ":")
            #expect(!timecodes.isEmpty && timecodes.allSatisfy { $0 == wanted }, ".\(ext) \(options): \(timecodes), wanted \(wanted)")
            checked += 1
        }
        #expect(checked == 5)
    }
}
