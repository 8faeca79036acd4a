import Foundation
import TestSupport
import Testing

/// AVI, a camera and download container that states only when each frame is decoded: H.264 in
/// it opens (a frame is shown when decoded) and exports both ways, frames in order; H.264 with
/// B-frames, whose display order AVI does not record, is refused with how to convert it.
@Suite struct AVISourceTests {
    func make(_ file: URL, _ video: [String]) throws {
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=6",
                                                   "-f", "lavfi", "-i", "sine=frequency=440:duration=6"] + video
                                        + ["-c:a", "libmp3lame", "-y", file.path])
        try #require(made.status == 0, "\(made.stderr)")
    }

    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// The video packets' presentation times of `file`, in frames of 1/30 s, sorted (AVI's
    /// H.264 has decode times only, which are its presentation times without B-frames).
    func packetFrames(_ file: URL) throws -> [Int] {
        try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", file.path])
            .stdout.split(separator: "\n").compactMap { line -> Double? in
                let fields = line.split(separator: ",").map(String.init)
                return fields.first.flatMap(Double.init) ?? fields.last.flatMap(Double.init)
            }
            .map { Int(($0 * 30).rounded()) }.sorted()
    }

    @Test(arguments: [["-c:v", "libx264", "-preset", "ultrafast", "-bf", "0"], ["-c:v", "mpeg4", "-q:v", "4"]])
    func aviVideoExportsBothWays(video: [String]) throws {
        let folder = try TemporaryFolder("avi")
        try make(folder.file("clip.avi"), video)
        let opened = try slowpoke(["open", "clip.avi"], in: folder)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try slowpoke(["scale", "--range", "2-3", "--rate", "0.5"], in: folder).status == 0)
        // Passthrough: every frame, on the exact map (frames of 1/30 s: 2-3 s lasts twice as
        // long, and what follows comes 1 s later). ffmpeg's AVI holds a 0-byte "repeat the last
        // frame" entry at frame 1, which is no frame.
        let passthrough = try slowpoke(["export", "-o", "pass.mp4", "--progress", "none"], in: folder)
        #expect(passthrough.status == 0, "\(passthrough.stderr)")
        let source = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts,size",
                                                      "-of", "csv=p=0", folder.file("clip.avi").path]).stdout.split(separator: "\n")
            .map { $0.split(separator: ",").compactMap { Int($0) } }.filter { $0.count == 2 && $0[1] > 0 }.map { $0[0] }
        let expected = source.map { $0 < 60 ? $0 : $0 < 90 ? 60 + 2 * ($0 - 60) : $0 + 30 }
        let written = try packetFrames(folder.file("pass.mp4"))
        #expect(source.count >= 179 && written == expected, "\(written) against \(expected)")
        // --fps decodes from the start (AVI refuses a seek before its first frame).
        let constant = try slowpoke(["export", "--fps", "30", "--preset", "ultrafast", "-o", "cfr.mp4", "--progress", "none"], in: folder)
        #expect(constant.status == 0, "\(constant.stderr)")
        let constantFrames = try packetFrames(folder.file("cfr.mp4"))
        #expect(constantFrames == Array(0..<211), "\(constantFrames)")
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("cfr.mp4").path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    }

    @Test func reorderedH264InAVIIsRefusedWithTheWayOut() throws {
        let folder = try TemporaryFolder("avi-bframes")
        try make(folder.file("bframes.avi"), ["-c:v", "libx264", "-preset", "medium", "-bf", "3"])
        let opened = try slowpoke(["open", "bframes.avi"], in: folder)
        #expect(opened.status != 0 && opened.stderr.contains("reorders its frames (B-frames)")
                && opened.stderr.contains("ffmpeg -i bframes.avi -c:v libx264"), "\(opened.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("bframes.slowpoke").path))
    }
}
