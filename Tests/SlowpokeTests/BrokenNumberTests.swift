import Foundation
import TestSupport
import Testing

/// Issue 34, item 4: a number read from a file or the command line that slowpoke cannot use is
/// an error naming the file and the field, never a trap (exit 132), a hang, or NaN in the output.
@Suite struct BrokenNumberTests {
    /// Runs `slowpoke` in `folder` with a 20 s limit, so that a hang fails the test instead of
    /// stalling the suite.
    func bounded(_ arguments: [String], in folder: TemporaryFolder) throws -> BoundedRun.Outcome {
        try BoundedRun.run(TestSupport.slowpoke, arguments, in: folder.url, environment: [:], limit: 20)
    }

    @Test(arguments: [
        ("streams[1].index", "4294967296", "is 4294967296; a stream index is 0 to 2147483647"),
        ("streams[1].index", "-1", "is -1; a stream index is 0 to 2147483647"),
        ("streams[1].index", "0", "is 0, the index of an earlier stream too"),
        ("streams[0].height", "2147483648", "is 2147483648; a height is 0 to 65535"),
        ("streams[1].sampleRate", "0", "is 0; a sample rate is 1 to 2147483647"),
        ("streams[0].rotation", "1e300", "is 1e+300; a rotation is -360 to 360 degrees"),
    ])
    func aDocumentNumberOutsideItsRangeIsRefusedByName(field: String, value: String, problem: String) throws {
        let folder = try folderWithDocument()
        // The field set to a placeholder by Foundation's JSON reader and writer, then the
        // placeholder to the number's exact text.
        var root = try json(String(contentsOf: folder.file("clip.slowpoke"), encoding: .utf8))
        var media = try #require(root["media"] as? [String: Any])
        var streams = try #require(media["streams"] as? [[String: Any]])
        let stream = field.hasPrefix("streams[0]") ? 0 : 1
        streams[stream][String(field.split(separator: ".").last!)] = "@@VALUE@@"
        media["streams"] = streams
        root["media"] = media
        let text = String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
            .replacingOccurrences(of: "\"@@VALUE@@\"", with: value)
        try Data(text.utf8).write(to: folder.file("clip.slowpoke"))
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        var checked = 0
        for command in [["info"], ["history"], ["export", "-o", "out.mp4", "--progress", "none"], ["scale", "--range", "0-1", "--rate", "1/2"]] {
            let result = try bounded(command, in: folder)
            #expect(!result.signalled && result.status == 1, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr == "slowpoke: error: clip.slowpoke is not a readable slowpoke document (media.\(field) \(problem)); it was left unchanged\n",
                    "\(command)")
            #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
            #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
            checked += 1
        }
        #expect(checked == 4)
    }

    /// A mono 16-bit WAV of a 440 Hz tone at 48 kHz whose header then says `sampleRate` Hz and
    /// `channels` channels (block align and byte rate kept consistent with them).
    func wav(sampleRate: Int, channels: Int, in folder: TemporaryFolder) throws {
        var bytes = [UInt8](WAVBytes.make(.s16, channels: 1, sampleRate: 48000, frames: 48000))
        bytes.replaceSubrange(22..<24, with: WAVBytes.le(UInt64(channels), 2))
        bytes.replaceSubrange(24..<28, with: WAVBytes.le(UInt64(sampleRate), 4))
        bytes.replaceSubrange(28..<32, with: WAVBytes.le(UInt64(sampleRate * channels * 2 & 0xFFFF_FFFF), 4))
        bytes.replaceSubrange(32..<34, with: WAVBytes.le(UInt64(channels * 2), 2))
        try Data(bytes).write(to: folder.file("in.wav"))
    }

    @Test(arguments: [
        (2_000_000_000, 1, "varispeed", "/in.wav is not a movie or audio file that slowpoke can read (its header says 2000000000 Hz; slowpoke reads sample rates from 1 Hz to 768 kHz)"),
        (768_001, 1, "spectral", "/in.wav is not a movie or audio file that slowpoke can read (its header says 768001 Hz; slowpoke reads sample rates from 1 Hz to 768 kHz)"),
        (48000, 100, "timeDomain", "/in.wav is not a movie or audio file that slowpoke can read (its header says 100 channels; slowpoke reads 1 to 64)"),
        (100, 1, "timeDomain", "the timeDomain algorithm stretches audio of 8 kHz or more, and this is 100 Hz; varispeed plays any rate"),
        (4000, 1, "spectral", "the spectral algorithm stretches audio of 8 kHz or more, and this is 4000 Hz; varispeed plays any rate"),
    ])
    func aWAVHeaderOutsideTheLimitsIsRefused(sampleRate: Int, channels: Int, algorithm: String, message: String) throws {
        let folder = try TemporaryFolder("broken-wav")
        try wav(sampleRate: sampleRate, channels: channels, in: folder)
        let result = try bounded(["stretch", "in.wav", "out.wav", "--rate", "0.5", "--algorithm", algorithm, "--progress", "none"], in: folder)
        #expect(!result.timedOut && !result.signalled && result.status == 1, "\(result.status) \(result.stderr)")
        #expect(result.stderr.hasPrefix("slowpoke: error: ") && result.stderr.hasSuffix(message + "\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("RubberBand"), "\(result.stderr)")
        #expect(try folder.listing() == ["in.wav"])
    }

    /// Varispeed plays any rate within the limits, a 100 Hz file too (its sample count halves
    /// at double speed).
    @Test func varispeedPlaysALowSampleRate() throws {
        let folder = try TemporaryFolder("broken-wav")
        try wav(sampleRate: 100, channels: 1, in: folder)
        let result = try bounded(["stretch", "in.wav", "out.wav", "--rate", "2", "--algorithm", "varispeed", "--progress", "none"], in: folder)
        #expect(!result.signalled && result.status == 0, "\(result.stderr)")
        let probe = try TestSupport.ffprobe(folder.file("out.wav"), ["-show_streams"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(stream["sample_rate"] as? String == "100")
        #expect(stream["duration_ts"] as? Int == 24000)
    }

    /// One NaN and one infinity in a float WAV: the stretch is finite everywhere, the tone is
    /// still there, Rubber Band prints nothing, and one warning counts them.
    @Test(arguments: ["spectral", "timeDomain", "varispeed"])
    func nonFiniteSamplesBecomeSilenceWithOneWarning(algorithm: String) throws {
        let folder = try TemporaryFolder("broken-nan")
        var bytes = [UInt8](WAVBytes.make(.f32, channels: 2, sampleRate: 48000, frames: 48000))
        let data = bytes.count - 48000 * 8
        bytes.replaceSubrange((data + 12000 * 8)..<(data + 12000 * 8 + 4), with: WAVBytes.le(0x7FC0_0000, 4))
        bytes.replaceSubrange((data + 24000 * 8 + 4)..<(data + 24000 * 8 + 8), with: WAVBytes.le(0x7F80_0000, 4))
        try Data(bytes).write(to: folder.file("in.wav"))
        let result = try bounded(["stretch", "in.wav", "out.wav", "--rate", "0.5", "--algorithm", algorithm, "--progress", "none"], in: folder)
        #expect(!result.signalled && result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("MovingMedian"))
        let lines = result.stderr.split(separator: "\n")
        #expect(lines == ["slowpoke: warning: \(folder.url.path)/in.wav: 2 non-finite samples (NaN or infinity) replaced with silence"], "\(lines)")
        var checked = 0
        for channel in 0..<2 {
            let samples = try TestSupport.decodeAudio(folder.file("out.wav"), channel: channel)
            #expect(samples.count >= 95000)
            #expect(samples.allSatisfy { $0.isFinite }, "channel \(channel): \(samples.filter { !$0.isFinite }.count) non-finite")
            // The tone (0.5 peak, 0.35 RMS) plays on in both halves.
            #expect(Signals.rms(samples[10000..<40000]) > 0.25 && Signals.rms(samples[60000..<90000]) > 0.25)
            checked += 1
        }
        #expect(checked == 2)
    }

    /// A slow-motion sidecar's numbers are read exactly: a rate of 1e300 or a CMTime value of
    /// 1e30 is refused by name (they trapped converting to 64-bit integers).
    @Test(arguments: [
        ("1e300", "600", "600", "its slowMotion rate 1e+300 is not a fraction slowpoke can play"),
        ("0.25", "1e30", "600", "its region's start is not a CMTime with a whole value and a positive timescale"),
        ("0.25", "600", "1099511627776", "its region's start is not a CMTime with a whole value and a positive timescale"),
        ("0.25", "600.5", "600", "its region's start is not a CMTime with a whole value and a positive timescale"),
    ])
    func aSidecarNumberOutsideItsTypeIsRefusedByName(rate: String, value: String, timescale: String, reason: String) throws {
        let folder = try TemporaryFolder("broken-sidecar")
        try folder.copy(media: "clip240.mp4", as: "clip.mp4")
        #expect(try slowpoke("open", "clip.mp4", in: folder).status == 0)
        let script = """
            import plistlib, sys
            inner = plistlib.dumps({"slowMotion": {"rate": \(rate), "regions": [{"timeRange": {
                "start": {"value": \(value), "timescale": \(timescale), "flags": 1, "epoch": 0},
                "duration": {"value": 600, "timescale": 600, "flags": 1, "epoch": 0}}}]}}, fmt=plistlib.FMT_BINARY)
            outer = {"adjustmentData": inner, "adjustmentFormatIdentifier": "com.apple.video.slomo", "adjustmentFormatVersion": "1.1"}
            open(sys.argv[1], "wb").write(plistlib.dumps(outer, fmt=plistlib.FMT_XML))
            """
        try #require(try TestSupport.tool("python3", ["-c", script, folder.file("clip.AAE").path]).status == 0)
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try bounded(["slomo"], in: folder)
        #expect(!result.signalled && result.status == 1, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("/clip.AAE is not a slow-motion sidecar slowpoke can read (\(reason)); the document was left unchanged"),
                "\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }

    /// A number on the command line is read whole.
    @Test(arguments: ["4/2/2", "1//2", "1/2/", "0.5x", "1/2 3"])
    func aRateWithTrailingGarbageIsAnError(rate: String) throws {
        let folder = try TemporaryFolder("broken-rate")
        try Data(WAVBytes.make(.s16, channels: 1, sampleRate: 48000, frames: 4800)).write(to: folder.file("in.wav"))
        let result = try slowpoke("stretch", "in.wav", "out.wav", "--rate", rate, in: folder)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("slowpoke: error: The value '\(rate)' is invalid for '--rate <rate>': \"\(rate)\" is not a number"),
                "\(result.stderr)")
        #expect(try folder.listing() == ["in.wav"])
    }
}
