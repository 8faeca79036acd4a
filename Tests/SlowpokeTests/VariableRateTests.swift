import Foundation
import TestSupport
import Testing

/// Variable frame rate (issue 20, item 3): a movie's video ends where its last frame ends, so
/// the last frame of a jittered clip is neither cut from the timeline nor from the exports.
@Suite struct VariableRateTests {
    /// 360 frames at 30 fps whose presentation times jitter by up to ±12 ms (set on the packets
    /// with the `setts` bitstream filter; x264 ultrafast has no B-frames, so decode order is
    /// presentation order) and whose last frame lasts 1920 ticks of 1/90000 s.
    static func jittered(in folder: TemporaryFolder) throws -> URL {
        let regular = folder.file("regular.mp4"), movie = folder.file("vfr.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=12",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-video_track_timescale", "90000", regular.path])
        try #require(made.status == 0, "\(made.stderr)")
        let jitter = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", regular.path, "-c", "copy", "-bsf:v",
                                                     "setts=ts=N*3000+trunc(1080*sin(N))+1080:duration=0",
                                                     "-video_track_timescale", "90000", movie.path])
        try #require(jitter.status == 0, "\(jitter.stderr)")
        return movie
    }

    @Test func theLastFrameOfAJitteredClipIsKept() throws {
        let folder = try TemporaryFolder("vfr")
        let movie = try Self.jittered(in: folder)
        let packets = try TestSupport.ffprobe(movie, ["-select_streams", "v", "-show_entries", "packet=pts,duration", "-show_packets"])["packets"] as? [[String: Any]] ?? []
        try #require(packets.count == 360)
        let pts = packets.compactMap { $0["pts"] as? Int }
        let intervals = Set(zip(pts, pts.dropFirst()).map { $1 - $0 })
        #expect(intervals.count > 100, "the timestamps jitter: \(intervals.count) distinct intervals")
        let lastEnd = (pts.last ?? 0) + (packets.last?["duration"] as? Int ?? 0)

        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", movie.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", folder.file("vfr.slowpoke").path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        // The timeline reaches the end of the last frame, not its start.
        #expect(object?["duration"] as? String == "\(lastEnd)/90000", "\(object?["duration"] ?? "nil") for frames ending at \(lastEnd)/90000")

        let passthrough = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("vfr.slowpoke").path, "--progress", "none",
                                                                      "-o", folder.file("p.mp4").path])
        try #require(passthrough.status == 0, "\(passthrough.stderr)")
        let frames = try TestSupport.frameMD5s(folder.file("p.mp4"))
        #expect(frames.md5s.count == 360 && frames.errors.isEmpty, "\(frames.md5s.count) frames, \(frames.errors)")
        #expect(frames.md5s == (try TestSupport.frameMD5s(movie)).md5s, "every frame, the last included, is the source's")

        let cfr = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("vfr.slowpoke").path, "--progress", "none",
                                                              "--fps", "30", "-o", folder.file("c.mp4").path])
        try #require(cfr.status == 0, "\(cfr.stderr)")
        let counted = try TestSupport.ffprobe(folder.file("c.mp4"), ["-count_frames", "-show_entries", "stream=nb_read_frames"])
        let read = ((counted["streams"] as? [[String: Any]])?.first?["nb_read_frames"] as? String).flatMap { Int($0) }
        #expect(read == Int((Double(lastEnd) / 90000 * 30).rounded()), "\(String(describing: read)) frames at 30 fps")
    }
}
