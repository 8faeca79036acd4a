import Foundation
import Testing
import TestSupport

/// WebM in, WebM out: a VP9 + Opus movie (a browser recording, a download) exports to .webm by
/// default, its video packets copied and its Opus spliced; what WebM cannot hold is said, and
/// an export WebM cannot take is refused before anything is written. Checked with ffprobe and
/// ffmpeg.
@Suite struct WebMExportTests {
    func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// 16 s of 320x240 30 fps VP9 (or `video`) with a 20 ms 1 kHz beep at every whole second
    /// from 1 s, its audio made with `audio`, into `name`; `extra` inputs and options follow.
    func beepMovie(_ folder: TemporaryFolder, name: String, audio: [String], video: [String]? = nil,
                   rate: Int = 48000, extra: [String] = []) throws -> URL {
        let movie = folder.file(name)
        let beeps = "aevalsrc='0.8*sin(2*PI*1000*t)*lt(mod(t\\,1)\\,0.02)*gte(t\\,1)':s=\(rate):d=16"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=16",
                                                   "-f", "lavfi", "-i", beeps] + extra
                                        + (video ?? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30"])
                                        + audio + ["-t", "16", "-y", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// Whether `file`'s EBML header names the WebM document type.
    func isWebM(_ file: URL) throws -> Bool {
        let head = try FileHandle(forReadingFrom: file).read(upToCount: 64) ?? Data()
        return head.range(of: Data("webm".utf8)) != nil
    }

    func packetHashes(_ file: URL, _ stream: String) throws -> [String] {
        try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", stream, "-show_packets", "-show_data_hash", "md5",
                                         "-show_entries", "packet=data_hash", "-of", "csv=p=0", file.path])
            .stdout.split(separator: "\n").map(String.init)
    }

    /// When `stream` of `file` starts, in seconds.
    func start(_ file: URL, _ stream: String) throws -> Double {
        let probe = try TestSupport.ffprobe(file, ["-select_streams", stream, "-show_entries", "stream=start_time"])
        return Double((probe["streams"] as? [[String: Any]])?.first?["start_time"] as? String ?? "0") ?? 0
    }

    @Test func aWebMMovieExportsToWebMWithItsOwnPackets() throws {
        let folder = try TemporaryFolder("webm-smart")
        let movie = try beepMovie(folder, name: "clip.webm", audio: ["-c:a", "libopus", "-b:a", "96k"])
        #expect(try slowpoke("open", "clip.webm", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "4.5-7.5", "--rate", "0.5", in: folder).status == 0)
        let result = try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("audio copied where unchanged, re-encoded where edited"), "\(result.stdout)")
        let out = folder.file("clip-slowpoke.webm")
        #expect(try isWebM(out))
        // Every video packet is the source's; the Opus packets after the edit too (less a
        // margin at the seam), and those before it on the copied grid or re-encoded, said.
        let video = try packetHashes(movie, "v:0")
        let copiedVideo = Set(try packetHashes(out, "v:0"))
        #expect(video.count == 480 && copiedVideo == Set(video))
        let source = try packetHashes(movie, "a:0"), output = Set(try packetHashes(out, "a:0"))
        let after = (Int(7.5 * 50) + 8)..<(source.count - 8)
        let kept = after.filter { output.contains(source[$0]) }.count
        #expect(after.count > 350 && Double(kept) >= 0.97 * Double(after.count), "\(kept) of \(after.count) packets after the edit")
        // The beeps on the exact map, from each file's first video frame (ffmpeg's decode of
        // Opus starts at time 0, its pre-skip dropped; the source's VP9 starts 7 ms in). Matroska's
        // clock is the millisecond, and the error doubles inside the half-speed range.
        let sourceVideo = try start(movie, "v:0"), outVideo = try start(out, "v:0")
        #expect(outVideo == 0)
        let sourceBeeps = Signals.onsets(try TestSupport.decodeAudio(movie), threshold: 0.05, quiet: 4800).map { Double($0) / 48000 - sourceVideo }
        let found = Signals.onsets(try TestSupport.decodeAudio(out), threshold: 0.05, quiet: 4800).map { Double($0) / 48000 - outVideo }
        #expect(sourceBeeps.count == 15 && found.count == 15, "\(sourceBeeps) \(found)")
        for (beep, t) in zip(found, sourceBeeps) {
            let want = t < 4.5 ? t : t < 7.5 ? 4.5 + 2 * (t - 4.5) : t + 3
            #expect(abs(beep - want) <= 0.0015, "beep at \(beep) s, expected \(want) s")
        }
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0", "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
    }

    /// `--fps` encodes H.264, which WebM cannot hold: by default the export goes to .mkv (Opus
    /// still spliced); asked for .webm, it refuses before writing anything.
    @Test func constantRateExportsOfWebMGoToMatroska() throws {
        let folder = try TemporaryFolder("webm-fps")
        _ = try beepMovie(folder, name: "clip.webm", audio: ["-c:a", "libopus", "-b:a", "96k"])
        #expect(try slowpoke("open", "clip.webm", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "4-5", "--rate", "0.5", in: folder).status == 0)
        let refused = try slowpoke("export", "--fps", "30", "-o", "out.webm", "--progress", "none", in: folder)
        #expect(refused.status != 0 && refused.stderr.contains(".webm holds only VP8, VP9 and AV1 video") && refused.stderr.contains(".mkv"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.webm").path))
        let result = try slowpoke("export", "--fps", "30", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("clip-30fps.mkv") && result.stdout.contains("audio copied where unchanged, re-encoded where edited"), "\(result.stdout)\(result.stderr)")
        let codecs = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                      folder.file("clip-30fps.mkv").path]).stdout
        #expect(codecs.split(separator: "\n") == ["h264", "opus"], "\(codecs)")
    }

    /// Into WebM, AAC becomes Opus (at 48 kHz; Vorbis at other rates) and SRT subtitles
    /// WebVTT, each said; an H.264 movie is refused, naming the containers that hold it.
    @Test(arguments: [(48000, "opus"), (44100, "vorbis")])
    func whatWebMCannotHoldIsConvertedOrRefused(rate: Int, codec: String) throws {
        let folder = try TemporaryFolder("webm-convert")
        let srt = folder.file("cues.srt")
        try "1\n00:00:02,000 --> 00:00:03,000\nhello\n\n2\n00:00:10,000 --> 00:00:11,000\nagain\n".write(to: srt, atomically: true, encoding: .utf8)
        _ = try beepMovie(folder, name: "clip.mkv", audio: ["-c:a", "aac", "-b:a", "128k", "-c:s", "srt", "-map", "0:v", "-map", "1:a", "-map", "2:s"],
                          rate: rate, extra: ["-i", srt.path])
        #expect(try slowpoke("open", "clip.mkv", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "4-5", "--rate", "0.5", in: folder).status == 0)
        let result = try slowpoke("export", "-o", "out.webm", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("is encoded as \(codec == "opus" ? "Opus" : "Vorbis"): .webm holds only Opus and Vorbis audio"), "\(result.stderr)")
        let out = folder.file("out.webm")
        #expect(try isWebM(out))
        let codecs = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out.path]).stdout
        #expect(codecs.split(separator: "\n") == ["vp9", Substring(codec), "webvtt"], "\(codecs)")
        // The second cue moves 1 s later with the slowdown before it.
        let cues = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "s:0", "-show_entries", "packet=pts_time",
                                                    "-of", "csv=p=0", out.path]).stdout.split(separator: "\n").compactMap { Double($0) }
        #expect(cues.count == 2 && abs(cues[0] - 2) < 0.002 && abs(cues[1] - 11) < 0.002, "\(cues)")
        let samples = try TestSupport.decodeAudio(out)
        #expect(abs(samples.count - 17 * 48000) < 2048, "\(samples.count) samples")

        let h264 = try beepMovie(folder, name: "h264.mp4", audio: ["-c:a", "aac"], video: ["-c:v", "libx264", "-g", "30"])
        #expect(try slowpoke("open", h264.lastPathComponent, in: folder).status == 0)
        let refused = try slowpoke("export", "h264.slowpoke", "-o", "h264.webm", "--progress", "none", in: folder)
        #expect(refused.status != 0 && refused.stderr.contains(".webm cannot hold h264.mp4's h264 video (export to .mp4 or .mov or .mkv)")
                && !refused.stderr.contains("--fps"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("h264.webm").path))
    }
}
