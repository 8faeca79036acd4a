import Foundation
import TestSupport
import Testing

/// A movie is more than one video and one audio stream (issue 21): every audio track is
/// retimed and keeps its language and codec where the container holds it, subtitles and
/// chapters follow the timeline, attachments are copied, HEVC stays `hvc1`. Everything is
/// checked with ffprobe and ffmpeg, never with slowpoke's own reader.
@Suite struct EveryStreamTests {
    /// The reproduction: two audio tracks (Opus eng 440 Hz, Vorbis ger 880 Hz) and SRT
    /// cues at 1.0-2.5 and 4.0-6.0 s, in a 10 s mkv; with `chapters`, also chapters One (0-2.5),
    /// Two (2.5-4.5) and Three (4.5-10) and a font attachment.
    static func multiTrack(in folder: TemporaryFolder, chapters: Bool = false) throws -> URL {
        // Made once per test process for each variant (GeneratedMedia, in a scratch folder of
        // its own for the cue and chapter files): four cases start from the same movie.
        let made = try GeneratedMedia.shared(["EveryStreamTests.multiTrack", chapters ? "chapters" : "plain"], extension: "mkv") { movie in
            let folder = try TemporaryFolder("every-made")
            try Data("1\n00:00:01,000 --> 00:00:02,500\nFirst\n\n2\n00:00:04,000 --> 00:00:06,000\nSecond\n".utf8)
                .write(to: folder.file("subs.srt"))
            try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2500\nEND=4500\ntitle=Two\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=4500\nEND=10000\ntitle=Three\n".utf8)
                .write(to: folder.file("chapters.txt"))
            let extra = chapters ? ["-i", folder.file("chapters.txt").path, "-map_chapters", "4",
                                    "-attach", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                    "-metadata:s:t", "mimetype=application/x-truetype-font"] : []
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=10",
                                                       "-f", "lavfi", "-i", "sine=f=440:r=48000:d=10", "-f", "lavfi", "-i", "sine=f=880:r=48000:d=10",
                                                       "-i", folder.file("subs.srt").path] + extra + ["-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:s",
                                                       "-c:v", "libx264", "-preset", "ultrafast", "-c:a:0", "libopus", "-c:a:1", "libvorbis",
                                                       "-c:s", "srt", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=ger",
                                                       "-metadata:s:a:1", "title=Zweiton", "-disposition:a:1", "0", movie.path])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let movie = folder.file("multi.mkv")
        try FileManager.default.copyItem(at: made, to: movie)
        return movie
    }

    /// The cues of a file's first subtitle stream, as ffmpeg converts them to SRT: start, end
    /// (milliseconds) and text.
    static func cues(_ file: URL) throws -> [(start: Int, end: Int, text: String)] {
        let srt = try TestSupport.tool("ffmpeg", ["-v", "error", "-copyts", "-i", file.path, "-map", "0:s:0", "-f", "srt", "-"])
        try #require(srt.status == 0, "\(srt.stderr)")
        func ms(_ t: Substring) -> Int {
            let p = t.split(whereSeparator: { ":,".contains($0) }).map { Int($0)! }
            return ((p[0] * 60 + p[1]) * 60 + p[2]) * 1000 + p[3]
        }
        return srt.stdout.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard lines.count >= 3, let arrow = lines[1].range(of: " --> ") else { return nil }
            return (ms(lines[1][..<arrow.lowerBound]), ms(lines[1][arrow.upperBound...]), lines[2...].joined(separator: "\n"))
        }
    }

    static func streams(_ file: URL) throws -> [[String: Any]] {
        try TestSupport.ffprobe(file, ["-show_streams", "-show_entries", "stream=index,codec_type,codec_name,codec_tag_string,duration,disposition:stream_tags"])["streams"] as? [[String: Any]] ?? []
    }

    /// Decoded length of audio track `track`, in seconds (counted from the decoded samples).
    static func audioSeconds(_ file: URL, track: Int) throws -> Double {
        Double(try TestSupport.decodeAudio(file, track: track).count) / 48000
    }

    @Test(arguments: [["-o", "out.mkv"], ["-o", "out.mkv", "--fps", "30"], ["-o", "out.mp4"], ["-o", "out.mp4", "--fps", "30"]])
    func everyAudioTrackAndTheSubtitlesAreRetimed(flags: [String]) throws {
        let folder = try TemporaryFolder("every")
        let movie = try Self.multiTrack(in: folder)
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("multi.slowpoke").path
        try #require(try TestSupport.run(TestSupport.slowpoke, ["scale", document, "--range", "2-3", "--rate", "0.25"]).status == 0)
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none"]
                                         + flags.map { $0.hasPrefix("out") ? folder.file($0).path : $0 })
        try #require(export.status == 0, "\(export.stderr)")
        let out = folder.file(flags[1])
        let mkv = out.pathExtension == "mkv"
        let streams = try Self.streams(out)
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio", "audio", "subtitle"], "\(streams)")
        let codecs = streams.map { $0["codec_name"] as? String ?? "" }
        #expect(codecs[1...] == (mkv ? ["opus", "vorbis", "subrip"] : ["aac", "aac", "mov_text"]))
        let tags = streams.map { $0["tags"] as? [String: String] ?? [:] }
        #expect(tags[1]["language"] == "eng" && tags[2]["language"] == "ger", "\(tags)")
        #expect(tags[2][mkv ? "title" : "handler_name"] == "Zweiton", "the title, or in mp4 the handler name: \(tags)")
        #expect((streams[2]["disposition"] as? [String: Int])?["default"] == 0, "the second track stays not-default")
        if !mkv {
            #expect(export.stderr.contains("multi.mkv audio stream 1 (opus) is encoded as AAC: slowpoke keeps opus audio only in .mkv"), "\(export.stderr)")
            #expect(export.stderr.contains("multi.mkv audio stream 2 (vorbis) is encoded as AAC"), "\(export.stderr)")
        } else {
            #expect(!export.stderr.contains("warning"), "\(export.stderr)")
        }
        // Both tracks as long as the video (13 s) within one audio frame, each its own tone.
        for (track, tone) in [(0, 440.0), (1, 880.0)] {
            let samples = try TestSupport.decodeAudio(out, track: track)
            #expect(abs(Double(samples.count) / 48000 - 13) <= 0.025, "track \(track): \(samples.count) samples")
            for at in [1.0, 4.0, 11.0] {
                let f = Signals.dominantFrequency(samples, from: Int(at * 48000), count: 8192)
                #expect(abs(f - tone) < 10, "track \(track) at \(at) s: \(f) Hz")
            }
        }
        // Cue 1 (1.0-2.5) crosses into the slowed range and stretches with it: 1.0-4.0; cue 2
        // (4.0-6.0) moves 3 s later.
        let cues = try Self.cues(out)
        #expect(cues.count == 2, "\(cues)")
        #expect(cues.map(\.start) == [1000, 7000] && cues.map(\.end) == [4000, 9000], "\(cues)")
        #expect(cues.map(\.text) == ["First", "Second"], "\(cues)")
    }

    @Test func cuesAndChaptersFollowCutsAndAttachmentsAreCopied() throws {
        let folder = try TemporaryFolder("chapters")
        let movie = try Self.multiTrack(in: folder, chapters: true)
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("multi.slowpoke").path
        // --fps cuts exactly: source 4.0-5.0 goes (half of cue 2, the start of chapter Three),
        // source 6-8 plays at 2x.
        try #require(try TestSupport.run(TestSupport.slowpoke, ["remove", document, "--range", "4-5"]).status == 0)
        try #require(try TestSupport.run(TestSupport.slowpoke, ["scale", document, "--range", "5-7", "--rate", "2"]).status == 0)
        let out = folder.file("out.mkv")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--fps", "30", "--progress", "none", "-o", out.path])
        try #require(export.status == 0, "\(export.stderr)")
        let cues = try Self.cues(out)
        #expect(cues.map(\.start) == [1000, 4000] && cues.map(\.end) == [2500, 5000], "cue 2 clipped at the cut: \(cues)")
        let chapters = try TestSupport.ffprobe(out, ["-show_chapters"])["chapters"] as? [[String: Any]] ?? []
        let times = chapters.map { (($0["start_time"] as? String).flatMap(Double.init) ?? -1, ($0["end_time"] as? String).flatMap(Double.init) ?? -1) }
        let titles = chapters.map { ($0["tags"] as? [String: String])?["title"] ?? "" }
        #expect(titles == ["One", "Two", "Three"], "\(chapters)")
        // Three started at 4.5, inside the removed 4-5: it starts where the cut is (4.0), and
        // ends at the end: 4 + 1 (5-7 at 2x) + 3 = 8. The muxer started the video (and the cues)
        // at v0 to make room for Opus's pre-skip, but not the chapters: they stand v0 earlier
        // against the pictures, and so they must in the export.
        let probe = try TestSupport.ffprobe(movie, ["-show_entries", "stream=start_time", "-select_streams", "v"])
        let startText = (probe["streams"] as? [[String: Any]])?.first?["start_time"] as? String
        let v0 = try #require(startText.flatMap { Double($0) })
        let expected = [(0.0, 2.5 - v0), (2.5 - v0, 4.0), (4.0, 8.0 - v0)]
        #expect(times.count == 3 && zip(times, expected).allSatisfy { abs($0.0 - $1.0) < 0.002 && abs($0.1 - $1.1) < 0.002 }, "\(times)")
        let attachments = try Self.streams(out).filter { $0["codec_type"] as? String == "attachment" }
        #expect(attachments.count == 1 && (attachments.first?["tags"] as? [String: String])?["filename"] == "DejaVuSans.ttf", "\(attachments)")

        // An mp4 holds no attachments: the export says so, naming the stream, and still carries the rest.
        let mp4 = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none", "-o", folder.file("out.mp4").path])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(mp4.stderr.contains("multi.mkv stream 4 (attachment, ttf, filename DejaVuSans.ttf) is not in the export: only .mkv holds attachments"), "\(mp4.stderr)")
        #expect(try TestSupport.ffprobe(folder.file("out.mp4"), ["-show_chapters"])["chapters"].map { ($0 as? [Any])?.count } == 3)
    }

    @Test func hevcStaysHvc1AndPCMStaysPCM() throws {
        let folder = try TemporaryFolder("hvc1")
        let movie = folder.file("phone.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3",
                                                   "-f", "lavfi", "-i", "sine=f=440:r=48000:d=3",
                                                   "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                                   "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67",
                                                   "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-c:a", "pcm_s24le", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("phone.slowpoke").path
        try #require(try TestSupport.run(TestSupport.slowpoke, ["scale", document, "--range", "1-2", "--rate", "0.5"]).status == 0)
        for (name, extra) in [("p.mov", [String]()), ("e.mp4", ["--fps", "30", "--codec", "hevc"]), ("e.mov", ["--fps", "30", "--codec", "hevc"])] {
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none", "-o", folder.file(name).path] + extra)
            try #require(export.status == 0, "\(export.stderr)")
            let streams = try Self.streams(folder.file(name))
            #expect(streams.first?["codec_tag_string"] as? String == "hvc1", "\(name): \(streams)")
            // 24-bit PCM stays PCM in a .mov; an .mp4 cannot hold it and says so.
            let audio = streams.first { $0["codec_type"] as? String == "audio" }?["codec_name"] as? String
            #expect(audio == (name.hasSuffix(".mov") ? "pcm_s24le" : "aac"), "\(name): \(streams)")
            #expect(name.hasSuffix(".mov") || export.stderr.contains("(pcm_s24le) is encoded as AAC"), "\(export.stderr)")
            // Exactly 4 s of audio: PCM to the sample, AAC within a frame.
            let seconds = try Self.audioSeconds(folder.file(name), track: 0)
            #expect(abs(seconds - 4) <= (name.hasSuffix(".mov") ? 0.5 / 48000 : 0.025), "\(name): \(seconds) s")
        }
    }
}
