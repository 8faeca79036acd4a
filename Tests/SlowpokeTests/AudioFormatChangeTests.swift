import Foundation
import TestSupport
import Testing

/// Audio whose format changes mid-file, as broadcast recordings (a 5.1 film between stereo
/// adverts) and camcorder clips joined with `cat` have it (issue 36). Every export plays it in one
/// format, the widest layout at the first rate, and says so; nothing crashes, no channel is lost.
@Suite struct AudioFormatChangeTests {
    /// Five distinct tones on FL FR FC SL SR and 60 Hz on the LFE, or 440 Hz in stereo.
    static func sound(_ layout: String, rate: Int = 48000) -> [String] {
        guard layout == "5.1" else { return ["-filter_complex", "sine=f=440:sample_rate=\(rate):duration=2[a]", "-map", "[a]", "-ac", "2"] }
        let tones = [300, 400, 500, 60, 700, 800].enumerated().map { "sine=f=\($1):sample_rate=\(rate):duration=2[c\($0)]" }
        return ["-filter_complex", tones.joined(separator: ";") + ";[c0][c1][c2][c3][c4][c5]join=inputs=6:channel_layout=5.1[a]", "-map", "[a]"]
    }

    /// Two 2-second TS clips with `first` then `second` audio (AC-3 or AAC), joined with `cat`;
    /// the second's clock follows on from the first's, as a recording's does.
    static func joinedTS(in folder: TemporaryFolder, _ parts: [(layout: String, rate: Int)], codec: String) throws -> URL {
        var pieces: [URL] = []
        for (k, part) in parts.enumerated() {
            let piece = folder.file("part\(k).ts")
            let video = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2"]
            let offset = k == 0 ? [] : ["-output_ts_offset", "\(2 * k)"]
            let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + video + sound(part.layout, rate: part.rate)
                                            + ["-map", "0:v", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", codec]
                                            + offset + ["-f", "mpegts", piece.path])
            try #require(made.status == 0, "\(made.stderr)")
            pieces.append(piece)
        }
        let joined = folder.file("joined.ts")
        try #require(try TestSupport.tool("sh", ["-c", "cat \(pieces.map(\.path).joined(separator: " ")) > \(joined.path)"]).status == 0)
        return joined
    }

    /// The time `info` gives for the change to `format` (`then 48000 Hz stereo at 1.995 s`).
    static func changeTime(_ info: String, to format: String) -> Double? {
        guard let range = info.range(of: "then \(format) at ") else { return nil }
        return Double(info[range.upperBound...].prefix { $0 != " " })
    }

    /// The level of each output channel over `seconds`, in dB, decoded by ffmpeg.
    static func levels(_ file: URL, channels: Int, seconds: ClosedRange<Double>) throws -> [Double] {
        try (0..<channels).map { c in
            let samples = try TestSupport.decodeAudio(file, channel: c)
            let from = Int(seconds.lowerBound * 48000), to = min(samples.count, Int(seconds.upperBound * 48000))
            guard to > from else { return -200 }
            return 20 * log10(Double(Signals.rms(samples[from..<to])) + 1e-10)
        }
    }

    @Test(arguments: [["5.1", "2.0"], ["2.0", "5.1"]])
    func channelChangesKeepEveryChannel(order: [String]) throws {
        let folder = try TemporaryFolder("channels")
        let movie = try Self.joinedTS(in: folder, order.map { ($0, 48000) }, codec: "ac3")
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", movie.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        let document = folder.file("joined.slowpoke")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        let second = order[1] == "5.1" ? "5.1(side)" : "stereo"
        let at = Self.changeTime(info.stdout, to: "48000 Hz \(second)")
        #expect(at.map { abs($0 - 2) < 0.05 } == true, "\(info.stdout)")
        let output = folder.file("out.mp4")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path])
        try #require(export.status == 0, "exit \(export.status): \(export.stderr)")
        #expect(export.stderr.contains("changes format mid-file"), "\(export.stderr)")
        #expect(export.stderr.contains("plays as 48000 Hz 5.1(side)"), "\(export.stderr)")
        let channels = try TestSupport.ffprobe(output, ["-select_streams", "a", "-show_entries", "stream=channels"])
        let streams = channels["streams"] as? [[String: Any]]
        #expect(streams?.first?["channels"] as? Int == 6, "\(channels)")
        // The 5.1 half has all six channels at the source's level (about -21 dB for a tone of
        // amplitude 1/8; the LFE lower after AC-3's low-pass); the stereo half has its two.
        let surround = order[0] == "5.1" ? 0.2...1.8 : 2.2...3.8, stereo = order[0] == "5.1" ? 2.2...3.8 : 0.2...1.8
        let full = try Self.levels(output, channels: 6, seconds: surround)
        var checked = 0
        for (c, level) in full.enumerated() {
            #expect(level > -30, "channel \(c) of the 5.1 half is at \(level) dB")
            checked += 1
        }
        let two = try Self.levels(output, channels: 2, seconds: stereo)
        for (c, level) in two.enumerated() {
            #expect(level > -30, "channel \(c) of the stereo half is at \(level) dB")
            checked += 1
        }
        #expect(checked == 8)
    }

    /// `stretch` reads the same joined audio (raw AC-3 from `cat`) without crashing.
    @Test func stretchReadsAChannelChange() throws {
        let folder = try TemporaryFolder("stretch-ac3")
        var parts: [String] = []
        for (k, layout) in ["5.1", "2.0"].enumerated() {
            let part = folder.file("p\(k).ac3")
            let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + Self.sound(layout) + ["-c:a", "ac3", part.path])
            try #require(made.status == 0, "\(made.stderr)")
            parts.append(part.path)
        }
        let joined = folder.file("joined.ac3"), output = folder.file("slow.wav")
        try #require(try TestSupport.tool("sh", ["-c", "cat \(parts.joined(separator: " ")) > \(joined.path)"]).status == 0)
        let stretch = try TestSupport.run(TestSupport.slowpoke, ["stretch", joined.path, output.path, "--rate", "0.5"])
        try #require(stretch.status == 0, "exit \(stretch.status): \(stretch.stderr)")
        #expect(stretch.stderr.contains("changes format mid-file"), "\(stretch.stderr)")
        let probed = try TestSupport.ffprobe(output, ["-show_entries", "stream=channels:format=duration"])
        #expect((probed["streams"] as? [[String: Any]])?.first?["channels"] as? Int == 6, "\(probed)")
        let duration = Double((probed["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - 8) < 0.1, "\(duration) s")
        let late = try Self.levels(output, channels: 2, seconds: 4.5...7.5)
        #expect(late.allSatisfy { $0 > -30 }, "the stereo half, slowed, is at \(late) dB")
    }

    /// AAC at 44.1 kHz then 48 kHz: the second half keeps its pitch and plays without clicks.
    @Test(arguments: ["adts", "ts"])
    func rateChangeKeepsPitch(container: String) throws {
        let folder = try TemporaryFolder("rate-\(container)")
        let movie: URL
        if container == "ts" {
            movie = try Self.joinedTS(in: folder, [("2.0", 44100), ("2.0", 48000)], codec: "aac")
        } else {
            var parts: [String] = []
            for rate in [44100, 48000] {
                let part = folder.file("p\(rate).aac")
                let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + Self.sound("2.0", rate: rate) + ["-c:a", "aac", "-f", "adts", part.path])
                try #require(made.status == 0, "\(made.stderr)")
                parts.append(part.path)
            }
            movie = folder.file("joined.aac")
            try #require(try TestSupport.tool("sh", ["-c", "cat \(parts.joined(separator: " ")) > \(movie.path)"]).status == 0)
        }
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = movie.deletingPathExtension().appendingPathExtension("slowpoke")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        #expect(info.stdout.contains("44100 Hz stereo, then 48000 Hz stereo at "), "\(info.stdout)")
        let at = Self.changeTime(info.stdout, to: "48000 Hz stereo")
        #expect(at.map { abs($0 - 2) < 0.05 } == true, "\(info.stdout)")
        let output = folder.file(container == "ts" ? "out.mkv" : "out.wav")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path])
        try #require(export.status == 0, "exit \(export.status): \(export.stderr)")
        #expect(export.stderr.contains("plays as 44100 Hz stereo"), "\(export.stderr)")
        let samples = try TestSupport.decodeAudio(output, sampleRate: 44100, channel: 0)
        #expect(abs(Double(samples.count) / 44100 - 4) < 0.1, "\(samples.count) samples")
        var checked = 0
        for start in [0.3, 1.0, 2.3, 3.0] {
            let pitch = Signals.dominantFrequency(samples, from: Int(start * 44100), count: 16384, sampleRate: 44100)
            #expect(abs(pitch - 440) < 2, "\(pitch) Hz at \(start) s")
            checked += 1
        }
        // A 440 Hz sine of amplitude 1/8 moves at most 0.008 from sample to sample; a gap of
        // silence between codec frames (a click) moves up to 0.125.
        let late = Array(samples[Int(2.2 * 44100)..<Int(3.7 * 44100)])
        #expect(Signals.largestStep(late) < 0.02, "a click of \(Signals.largestStep(late)) in the 48 kHz half")
        #expect(checked == 4)
    }
}
