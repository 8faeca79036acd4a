import Foundation
import TestSupport
import Testing

/// Two transport-stream recordings joined with plain `cat` repeat each other's clock (both start
/// at 1.4 s). slowpoke reads them on one running clock, as ffmpeg's discontinuity handling does:
/// the second recording follows the first, every frame of both in order, its audio after the
/// first's, in the media index and in every export alike (it refused such a file at `open`).
@Suite struct ClockRestartTests {
    /// The video frames' MD5s of `file` as ffmpeg decodes them.
    func frames(_ file: URL) throws -> [String] {
        let decoded = try TestSupport.frameMD5s(file)
        #expect(decoded.errors.isEmpty, "\(file.lastPathComponent): \(decoded.errors)")
        return decoded.md5s
    }

    /// The dominant frequency of `samples` over the 32768 samples (0.68 s) from `seconds`.
    func tone(_ samples: [Float], at seconds: Double) -> Double {
        let from = Int(seconds * 48000)
        guard from + 32768 <= samples.count else { return 0 }
        return Signals.dominantFrequency(samples, from: from, count: 32768)
    }

    /// The amplitude of `frequency` in the 10 ms of `samples` from `start`.
    func level(_ samples: [Float], at start: Int, _ frequency: Double) -> Double {
        var re = 0.0, im = 0.0
        for i in 0..<480 where start + i < samples.count {
            let phase = 2 * Double.pi * frequency * Double(i) / 48000
            re += Double(samples[start + i]) * cos(phase)
            im -= Double(samples[start + i]) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / 480
    }

    /// `audioLeads`: the second recording's sound starts 0.3 s before its pictures, so its audio
    /// finds the restart and its video then sets the offset (the sound before its first picture
    /// overlaps the first recording's and is dropped).
    @Test(arguments: [("aac", false), ("mp2", false), ("aac", true)])
    func aCatJoinPlaysOnOneClock(audioCodec: String, audioLeads: Bool) throws {
        let folder = try TemporaryFolder("ts-restart")
        // Two 2 s recordings, 30 fps H.264 with B-frames and a 440 then 880 Hz tone, each
        // starting at 1.4 s (the mpegts muxer's default).
        var halves: [[String]] = []
        for (k, frequency) in [440, 880].enumerated() {
            let part = folder.file("p\(k).ts")
            let lead = audioLeads && k == 1 ? 0.3 : 0
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-itsoffset", "\(lead)", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2",
                                                       "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=\(2 + lead)",
                                                       "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "15", "-pix_fmt", "yuv420p",
                                                       "-c:a", audioCodec, "-f", "mpegts", part.path])
            try #require(made.status == 0, "\(made.stderr)")
            let start = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=start_time",
                                                         "-of", "csv=p=0", part.path]).stdout
            let seconds = start.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.first
            try #require(abs((seconds ?? 0) - 1.4 - (audioLeads && k == 1 ? 0.3 : 0)) < 0.1, "part \(k) starts at \(start)")
            halves.append(try frames(part))
            try #require(halves[k].count == 60, "part \(k): \(halves[k].count) frames")
        }
        let movie = folder.file("joined.ts"), document = folder.file("joined.slowpoke")
        try #require(try TestSupport.tool("sh", ["-c", "cd \(folder.url.path) && cat p0.ts p1.ts > joined.ts"]).status == 0)
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", movie.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        #expect(info.stdout.contains("120 frames, 4 s"), "\(info.stdout)")
        let said = info.stdout.split(separator: "\n").filter { $0.contains("clock starts again at") }
        #expect(said.count == 1 && said[0].contains("at 2.000 s"), "\(info.stdout)")

        let cut = folder.file("cut.slowpoke")
        try FileManager.default.copyItem(at: document, to: cut)
        let removed = try TestSupport.run(TestSupport.slowpoke, ["remove", cut.path, "--range", "1.5-2.5"])
        try #require(removed.status == 0, "\(removed.stderr)")
        let whole = halves[0] + halves[1]
        // The removal keeps frames 0-44 of the first recording and 15-59 of the second.
        let kept = Array(halves[0][..<45] + halves[1][15...])
        var checked = 0
        for (doc, expected) in [(document, whole), (cut, kept)] {
            for fps in [false, true] {
                let name = "\(doc.deletingPathExtension().lastPathComponent)-\(fps ? "fps" : "copy").mp4"
                let output = folder.file(name)
                // --crf 0 is lossless: the re-encoded frames decode to the source's pixels.
                let flags = fps ? ["--fps", "30", "--crf", "0", "--preset", "ultrafast"] : []
                let export = try TestSupport.run(TestSupport.slowpoke, ["export", doc.path, "-o", output.path] + flags)
                try #require(export.status == 0, "\(name): \(export.stderr)")
                #expect(!export.stderr.contains("damaged"), "\(name): \(export.stderr)")
                let out = try frames(output)
                #expect(out == expected, "\(name): \(out.count) frames, \(zip(out, expected).filter { $0 != $1 }.count) differ from the recordings'")
                let seconds = Double(expected.count) / 30
                let probed = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0", output.path])
                for line in probed.stdout.split(separator: "\n") {
                    let duration = Double(line.split(separator: ",").last ?? "") ?? 0
                    #expect(abs(duration - seconds) < 0.05, "\(name): \(line), not \(seconds) s")
                }
                // The first recording's tone, then the second's, switching where its frames do.
                let audio = try TestSupport.decodeAudio(output)
                let join = doc == document ? 2.0 : 1.5
                let first = tone(audio, at: join - 0.75), second = tone(audio, at: join + 0.1)
                #expect(abs(first - 440) < 2 && abs(second - 880) < 2, "\(name): \(first) Hz before the join, \(second) Hz after")
                // Where 880 Hz overtakes 440 Hz (10 ms windows, 1 ms apart): at the join (measured:
                // 2 ms before it, 5 ms with the removal), not a recording's length away.
                let from = Int((join - 0.1) * 48000)
                let switched = stride(from: from, to: from + 9600, by: 48).first { level(audio, at: $0, 880) > level(audio, at: $0, 440) }
                let offset = switched.map { (Double($0) / 48000 - join) * 1000 }
                #expect(offset.map { abs($0) <= 15 } == true, "\(name): the second tone takes over \(offset.map { "\($0) ms" } ?? "nowhere") from the join")
                #expect(abs(Double(audio.count) / 48000 - seconds) < 0.05, "\(name): \(Double(audio.count) / 48000) s of audio")
                checked += 1
            }
        }
        #expect(checked == 4)
    }
}
