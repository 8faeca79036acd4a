import Foundation
import TestSupport
import Testing

/// Real files are not always whole: a cut-off download must export to a file that decodes, and
/// an intact AVI with drop markers must not be called damaged (issue 20, defects 4 and 5).
@Suite struct DamagedSourceTests {
    func make(_ file: URL, _ args: [String]) throws {
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=10"] + args + [file.path])
        try #require(made.status == 0, "\(made.stderr)")
    }

    @Test func aTruncatedMovieExportsWithoutItsDamagedPackets() throws {
        let folder = try TemporaryFolder("damaged")
        let whole = folder.file("whole.mp4")
        try make(whole, ["-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        let data = try Data(contentsOf: whole)
        let cut = folder.file("cut.mp4")
        try data.prefix(data.count * 6 / 10).write(to: cut)
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", cut.path]).status == 0)
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("cut.slowpoke").path, "-o", folder.file("out.mp4").path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("truncated or damaged"), "\(export.stderr)")
        #expect(export.stderr.contains("is damaged; passthrough leaves it out") || export.stderr.contains("passthrough leaves them out"),
                "\(export.stderr)")
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "the output does not decode cleanly: \(decoded.stderr)")
    }

    @Test func anAVIsDropMarkersAreNotDamage() throws {
        let folder = try TemporaryFolder("avi")
        let movie = folder.file("intact.avi")
        try make(movie, ["-f", "lavfi", "-i", "sine=d=10", "-c:v", "mpeg4", "-c:a", "libmp3lame"])
        let frames = try TestSupport.ffprobe(movie, ["-select_streams", "v", "-show_entries", "stream=nb_frames"])
        let declared = ((frames["streams"] as? [[String: Any]])?.first?["nb_frames"] as? String).flatMap(Int.init)
        let read = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v", "-count_packets", "-show_entries",
                                                    "stream=nb_read_packets", "-of", "csv=p=0", movie.path])
        // The premise: ffmpeg wrote more index entries than packets (a 0-byte drop marker).
        try #require(declared != nil && Int(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 < declared!,
                     "ffmpeg wrote no drop marker: \(declared ?? -1) vs \(read.stdout)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("intact.slowpoke").path, "-o", folder.file("out.mp4").path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(!export.stderr.contains("truncated") && !export.stderr.contains("damaged"), "\(export.stderr)")
    }
}
