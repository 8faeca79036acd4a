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

    /// A cut-off download with sound: the export stops with its last readable frame, as it says,
    /// in both exports; it once ran on to the listed length with the last frame held in silence
    /// (a truncated 25 s movie, slowed 1 s, wrote 29.4 s of which 7.6 s were silent).
    @Test(arguments: [[] as [String], ["--fps", "25", "--preset", "ultrafast"]])
    func aTruncatedMovieEndsWhereItsVideoDoes(options: [String]) throws {
        let folder = try TemporaryFolder("truncated-end")
        let whole = folder.file("whole.mp4")
        try make(whole, ["-f", "lavfi", "-i", "sine=frequency=440:duration=10", "-c:v", "libx264", "-preset", "veryfast", "-g", "25",
                         "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart"])
        let data = try Data(contentsOf: whole)
        let cut = folder.file("cut.mp4")
        try data.prefix(data.count * 6 / 10).write(to: cut)
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", cut.path]).status == 0)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["scale", "cut.slowpoke", "--range", "1-2", "--rate", "0.5"], in: folder.url).status == 0)
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "cut.slowpoke", "-o", "out.mp4", "--progress", "none"] + options, in: folder.url)
        #expect(export.status == 0 && export.stderr.contains("the export stops where the readable video ends"), "\(export.stderr)")
        // The last readable frame's end, and where the output's streams end: 1 s later.
        let frames = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time",
                                                      "-of", "csv=p=0", cut.path]).stdout.split(separator: "\n")
            .map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
        let readable = (frames.map { $0[0] + $0[1] }.max() ?? 0)
        #expect(readable > 3 && readable < 9, "the readable video ends at \(readable) s")
        let listed = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0",
                                                      folder.file("out.mp4").path]).stdout
        var ends: [(String, Double)] = []
        for line in listed.split(separator: "\n") {
            let fields = line.split(separator: ",")
            if fields.count == 2, let end = Double(fields[1]) { ends.append((String(fields[0]), end)) }
        }
        #expect(ends.count == 2, "\(ends)")
        for (kind, end) in ends {
            #expect(abs(end - (readable + 1)) < 0.1, "the \(kind) ends at \(end) s, not \(readable + 1) s")
        }
    }

    /// A camera's mp4 writes its index (moov) last: cut off, the file has none, and open says
    /// that, not only "invalid data".
    @Test func aTruncatedMovieWithoutItsIndexIsExplained() throws {
        let folder = try TemporaryFolder("no-moov")
        let whole = folder.file("whole.mp4")
        try make(whole, ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"])
        let data = try Data(contentsOf: whole)
        let cut = folder.file("cut.mp4")
        try data.prefix(data.count * 7 / 10).write(to: cut)
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", cut.path])
        #expect(opened.status != 0 && opened.stderr.contains("cut.mp4 is not a movie or audio file that slowpoke can read (its index (the moov box) is missing")
                && opened.stderr.contains("inside its mdat box"), "\(opened.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("cut.slowpoke").path))
    }

    /// A movie whose first audio track's header is damaged (no codec, no sample rate, no
    /// channels: what the movie fuzzer found in a flipped `mp4a` sample entry) opens into a
    /// document slowpoke reads back; the second track becomes the document's audio, and the
    /// export carries it and the video and names the damaged track. Before, `open` wrote a
    /// document it then refused (a sample rate of 0) and left it behind.
    @Test func aDamagedAudioHeaderIsNamedAndTheRestExports() throws {
        let folder = try TemporaryFolder("damaged-audio-header")
        let whole = folder.file("whole.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=4",
                                                   "-f", "lavfi", "-i", "sine=f=440:d=4:r=48000", "-f", "lavfi", "-i", "sine=f=660:d=4:r=48000",
                                                   "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "veryfast",
                                                   "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-movflags", "+faststart", whole.path])
        try #require(made.status == 0, "\(made.stderr)")
        var bytes = [UInt8](try Data(contentsOf: whole))
        // The first audio sample entry: its name and its esds box renamed, its channel count and
        // sample rate zeroed.
        let entry = try #require(Self.find("mp4a", in: bytes))
        let esds = try #require(Self.find("esds", in: bytes, from: entry))
        bytes.replaceSubrange(entry..<(entry + 4), with: Array("zzzz".utf8))
        bytes.replaceSubrange(esds..<(esds + 4), with: Array("zsds".utf8))
        for i in [20, 21, 28, 29, 30, 31] { bytes[entry + i] = 0 }
        let movie = folder.file("movie.mp4")
        try Data(bytes).write(to: movie)
        for step in [["open", "movie.mp4"], ["info"], ["scale", "--range", "1-2", "--rate", "1/2"]] {
            let result = try TestSupport.run(TestSupport.slowpoke, step, in: folder.url)
            #expect(result.status == 0, "slowpoke \(step.joined(separator: " ")): \(result.stderr)")
        }
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "-o", "out.mp4", "--progress", "none"], in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("stream 1 (audio") && export.stderr.contains("is not in the export"), "\(export.stderr)")
        let streams = try TestSupport.ffprobe(folder.file("out.mp4"), ["-show_entries", "stream=codec_type,codec_name"])["streams"] as? [[String: Any]]
        #expect(streams?.map { "\($0["codec_type"] ?? "")/\($0["codec_name"] ?? "")" } == ["video/h264", "audio/aac"])
        // The carried track is the second one (660 Hz), slowed: 5 s of it.
        let audio = try TestSupport.decodeAudio(folder.file("out.mp4"))
        #expect(abs(Double(audio.count) / 48000 - 5) < 0.05, "\(audio.count) samples")
    }

    static func find(_ name: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let pattern = Array(name.utf8)
        guard bytes.count >= 4 else { return nil }
        return (start..<(bytes.count - 3)).first { bytes[$0..<($0 + 4)].elementsEqual(pattern) }
    }
}
