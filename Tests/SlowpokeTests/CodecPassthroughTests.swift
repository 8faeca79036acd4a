import Foundation
import TestSupport
import Testing

/// Passthrough copies any codec its container can hold. Each clip is made here by ffmpeg from
/// its test source (moving pictures, so encoders really use B-frames and prediction), exported
/// with a slowed range, and decoded again by ffmpeg.
@Suite struct CodecPassthroughTests {
    @Test(arguments: [
        ("h264-open-gop", ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "open-gop=1:keyint=24:bframes=3:b-pyramid=normal"], "mp4"),
        ("hevc", ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:bframes=4:keyint=24"], "mp4"),
        ("vp9", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "24"], "mkv"),
        ("av1", ["-c:v", "libsvtav1", "-preset", "12", "-g", "24"], "mp4"),
        ("prores", ["-c:v", "prores_ks", "-profile:v", "0"], "mov"),
        ("mjpeg", ["-c:v", "mjpeg", "-q:v", "5"], "mkv"),
    ])
    func codecPassesThrough(name: String, encoder: [String], container: String) throws {
        let folder = try TemporaryFolder("codec")
        let clip = folder.file("\(name).\(container)")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=2",
                                                   "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                                   "-pix_fmt", "yuv420p"] + encoder + ["-c:a", "aac", "-shortest", clip.path])
        try #require(made.status == 0, "making \(name): \(made.stderr)")
        #expect(try slowpoke("open", clip.lastPathComponent, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "0.5-1", "--rate", "0.25", in: folder).status == 0)
        let exported = try slowpoke("export", "--progress", "none", in: folder)
        #expect(exported.status == 0, "\(name): \(exported.stderr)")
        let out = folder.file("\(name)-slowpoke.\(container)")
        let check = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderr == "", "\(name): \(check.stderr)")
        let before = try videoFrames(clip).pts.count, after = try videoFrames(out).pts.count
        #expect(before == after, "\(name): \(before) frames became \(after)")
        let probe = try TestSupport.ffprobe(out, ["-select_streams", "v:0", "-show_entries", "stream=codec_name:format=duration"])
        let duration = Double(((probe["format"] as? [String: Any])?["duration"] as? String) ?? "0") ?? 0
        // 2 s with 0.5 s slowed to 2 s: 3.5 s (mkv's millisecond clock rounds).
        #expect(abs(duration - 3.5) < 0.05, "\(name): \(duration) s")
    }

    /// With real reordering, the decode order stays strictly increasing and never after the
    /// presentation, and the presentation order of the frames is the source's.
    @Test func bFramesKeepTheirOrder() throws {
        let folder = try TemporaryFolder("codec")
        let clip = folder.file("b.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3",
                                                   "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "30", "-pix_fmt", "yuv420p", clip.path])
        try #require(made.status == 0)
        #expect(try slowpoke("open", "b.mp4", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "1-2", "--rate", "1/3", in: folder).status == 0)
        #expect(try slowpoke("export", "--progress", "none", in: folder).status == 0)
        for file in [clip, folder.file("b-slowpoke.mp4")] {
            let probe = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_entries", "packet=pts,dts"])
            let packets = try #require(probe["packets"] as? [[String: Any]])
            let pts = packets.compactMap { $0["pts"] as? Int }, dts = packets.compactMap { $0["dts"] as? Int }
            #expect(zip(dts.dropFirst(), dts).allSatisfy { $0 > $1 }, "\(file.lastPathComponent): decode times must increase")
            #expect(zip(dts, pts).allSatisfy { $0 <= $1 }, "\(file.lastPathComponent): decoded after shown")
            #expect(zip(pts.dropFirst(), pts).contains { $0 < $1 }, "\(file.lastPathComponent) has no reordered frames to test")
        }
    }
}
