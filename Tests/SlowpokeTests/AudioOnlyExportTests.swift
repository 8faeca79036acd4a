import Foundation
import TestSupport
import Testing

/// `slowpoke export` of a document whose movie has no video (issue 21, item 8): the timeline's
/// audio written as .m4a, .wav, .flac, .mp3 or .opus. Inputs are made by ffmpeg; outputs are
/// measured by ffprobe and ffmpeg's decoders only.
@Suite struct AudioOnlyExportTests {
    static let rate = 48000
    /// 10 s of source with 2-3 s at half speed: 11 s.
    static let exact = 11 * rate

    /// A folder holding a 10 s stereo 440 Hz tone in `source` (ffmpeg's default codec for its
    /// extension, or `codec`), opened, and with 2-3 s at half speed unless `edits` says otherwise.
    func song(_ source: String, codec: [String] = [], rate: Int = AudioOnlyExportTests.rate,
              edits: [[String]] = [["scale", "--range", "2-3", "--rate", "0.5"]]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("audio-only")
        // Made once per test process for each name, codec and rate (GeneratedMedia): nine
        // tests start from the same song.m4a.
        try GeneratedMedia.copy(["-f", "lavfi", "-i", "sine=f=440:r=\(rate):d=10", "-ac", "2"] + codec, as: source, in: folder)
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", source], in: folder.url)
        try #require(opened.status == 0, "\(opened.stderr)")
        let document = (source as NSString).deletingPathExtension + ".slowpoke"
        for edit in edits {
            let edited = try TestSupport.run(TestSupport.slowpoke, edit + [document], in: folder.url)
            try #require(edited.status == 0, "\(edited.stderr)")
        }
        return folder
    }

    /// `slowpoke export <args> --progress none` in `folder`.
    func export(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, ["export"] + arguments + ["--progress", "none"], in: folder.url)
    }

    /// Samples per channel that ffmpeg decodes from `file`.
    func decodedSamples(_ file: URL) throws -> Int {
        let raw = file.deletingLastPathComponent().appendingPathComponent("decoded-\(UUID().uuidString).s16")
        defer { try? FileManager.default.removeItem(at: raw) }
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-f", "s16le", "-ac", "1", "-y", raw.path])
        try #require(decoded.status == 0, "\(decoded.stderr)")
        return try Data(contentsOf: raw).count / 2
    }

    /// The first audio stream's facts as ffprobe states them.
    func stream(_ file: URL) throws -> [String: Any] {
        let probe = try TestSupport.ffprobe(file, ["-show_streams", "-select_streams", "a:0"])
        return try #require((probe["streams"] as? [[String: Any]])?.first)
    }

    /// Whether the ffmpeg here has `encoder` (the library slowpoke loads is the same one).
    static func hasEncoder(_ encoder: String) -> Bool {
        ((try? TestSupport.tool("ffmpeg", ["-hide_banner", "-encoders"]))?.stdout ?? "").contains(" \(encoder) ")
    }

    /// The outputs to check: every extension whose encoder this ffmpeg has, with its codec and
    /// how far from exact a decoder may be (one codec frame for the lossy ones; none for
    /// WAV and FLAC).
    static let outputs: [(ext: String, codec: String, slack: Int)] = [("wav", "pcm_f32le", 0), ("flac", "flac", 0), ("m4a", "aac", 1024)]
        + (hasEncoder("libmp3lame") ? [("mp3", "mp3", 1152)] : []) + (hasEncoder("libopus") ? [("opus", "opus", 960)] : [])

    /// Every source into every output in `make test-long`; in `make test`, each source into its
    /// own format (the two spliced cases among them), AAC into WAV (decoded to float), and the
    /// formats no source has.
    static let lengthCases: [(String, (ext: String, codec: String, slack: Int))] = {
        let all = ["song.m4a", "song.flac", "song.wav"].flatMap { source in outputs.map { (source, $0) } }
        let quick = [("song.m4a", "m4a"), ("song.flac", "flac"), ("song.wav", "wav"), ("song.m4a", "wav"),
                     ("song.flac", "mp3"), ("song.wav", "opus")]
        return TestTier.isLong ? all : all.filter { pair in quick.contains { $0 == (pair.0, pair.1.ext) } }
    }()

    @Test(arguments: lengthCases)
    func exactLength(source: String, output: (ext: String, codec: String, slack: Int)) throws {
        let folder = try song(source)
        let name = "out.\(output.ext)"
        // --exact: the timeline's own length (AAC into .m4a is otherwise fitted to whole frames).
        let result = try export(["song.slowpoke", "--exact", "-o", name], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let facts = try stream(folder.file(name))
        // WAV keeps a 16-bit source 16-bit; AAC decodes to float.
        let codec = output.ext == "wav" && source != "song.m4a" ? "pcm_s16le" : output.codec
        #expect(facts["codec_name"] as? String == codec)
        #expect(facts["sample_rate"] as? String == "48000")
        #expect(facts["channels"] as? Int == 2)
        // Smart audio keeps AAC into .m4a and PCM into .wav (see SmartAudioTests).
        let spliced = (source, output.ext) == ("song.m4a", "m4a") || (source, output.ext) == ("song.wav", "wav")
        #expect(result.stdout == "wrote \(name): 11 s, 48000 Hz stereo \(codec), \(spliced ? "audio copied where unchanged, re-encoded where edited" : "audio re-encoded through the timeline")\n")
        let samples = try decodedSamples(folder.file(name))
        if output.slack == 0 {
            #expect(samples == Self.exact, "\(source) → \(name)")
        } else {
            #expect(abs(samples - Self.exact) <= output.slack, "\(source) → \(name): \(samples) samples")
        }
        // The container's own length, once its priming is accounted, within a codec frame.
        if output.ext != "mp3", let duration = (facts["duration"] as? String).flatMap(Double.init) {
            #expect(abs(duration - 11) <= Double(max(1, output.slack)) / 48000, "\(source) → \(name): \(duration) s")
        }
        #expect(try folder.listing().allSatisfy { !$0.hasPrefix(".") }, "no temporary file is left")
    }

    /// The tone keeps its pitch through the slowed section with the pitch-keeping algorithms,
    /// follows the rate with varispeed, and moves with --semitones.
    @Test(arguments: [("spectral", 0.0, 440.0), ("timeDomain", 0.0, 440.0), ("varispeed", 0.0, 220.0), ("spectral", 12.0, 880.0)])
    func pitch(algorithm: String, semitones: Double, expected: Double) throws {
        let folder = try song("song.m4a")
        let result = try export(["-o", "out.flac", "--algorithm", algorithm, "--semitones", "\(semitones)"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try TestSupport.decodeAudio(folder.file("out.flac"))
        #expect(samples.count == Self.exact)
        // Output 2-4 s is source 2-3 s at half speed; measure its middle.
        let slowed = Signals.dominantFrequency(samples, from: 3 * Self.rate - 8192, count: 16384)
        #expect(abs(slowed - expected) / expected < 0.005, "\(algorithm) \(semitones): \(slowed) Hz")
        let before = Signals.dominantFrequency(samples, from: Self.rate / 2, count: 16384)
        let untouched = semitones == 0 ? 440.0 : expected
        #expect(abs(before - untouched) / untouched < 0.005, "\(algorithm) \(semitones) before the section: \(before) Hz")
    }

    /// AAC from AAC keeps the source's bit rate; from FLAC it gets the movie exports' 192 kb/s.
    @Test func bitRateFollowsTheSource() throws {
        for (source, codec, expected) in [("song.m4a", ["-c:a", "aac", "-b:a", "96k"], 96_000), ("song.flac", [], 192_000)] {
            let folder = try song(source, codec: codec)
            let result = try export(["-o", "out.m4a"], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let bitRate = try #require((try stream(folder.file("out.m4a"))["bit_rate"] as? String).flatMap(Double.init))
            #expect(abs(bitRate - Double(expected)) / Double(expected) < 0.1, "\(source): \(bitRate) b/s")
        }
        if Self.hasEncoder("libmp3lame") {
            let folder = try song("song.mp3", codec: ["-b:a", "128k"])
            #expect(try export(["-o", "out.mp3"], in: folder).status == 0)
            #expect(try stream(folder.file("out.mp3"))["bit_rate"] as? String == "128000")
        }
    }

    /// An untouched timeline into the source's own container copies the packets: the same
    /// samples come out.
    @Test(arguments: ["song.m4a", "song.flac", "song.wav"])
    func untouchedIsCopied(source: String) throws {
        let folder = try song(source, edits: [])
        let result = try export([], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let output = "song-slowpoke." + (source as NSString).pathExtension
        #expect(result.stdout.hasPrefix("wrote \(output): 10 s, 48000 Hz stereo "), "\(result.stdout)")
        #expect(result.stdout.hasSuffix(", audio copied as it was\n"), "\(result.stdout)")
        #expect(try decodedSamples(folder.file(output)) == (try decodedSamples(folder.file(source))))
    }

    /// A source in a container slowpoke does not write exports to .m4a by default.
    @Test func otherContainersDefaultToM4A() throws {
        let folder = try song("song.mka", codec: ["-c:a", "flac"])
        let result = try export([], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote song-slowpoke.m4a: 11 s, 48000 Hz stereo aac, audio re-encoded through the timeline\n")
    }

    @Test func anUnknownExtensionIsRefusedAndLeavesNothing() throws {
        let folder = try song("song.m4a")
        for name in ["out.txt", "out.mp4"] {
            let result = try export(["-o", name], in: folder)
            #expect(result.status == 1)
            #expect(result.stderr == "slowpoke: error: cannot write \(name): song.m4a has no video, so slowpoke exports its audio, as .m4a, .wav, .flac, .mp3 or .opus; give -o a name ending in one of those\n")
        }
        #expect(try folder.listing() == ["song.m4a", "song.slowpoke"])
    }

    @Test func fpsIsRefusedForAudio() throws {
        let folder = try song("song.m4a")
        let result = try export(["--fps", "30"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: --fps sets a video frame rate, and song.m4a has no video; leave --fps out to export its audio (.m4a, .wav, .flac, .mp3 or .opus)\n")
        #expect(try folder.listing() == ["song.m4a", "song.slowpoke"])
    }

    @Test func anExistingOutputNeedsForce() throws {
        let folder = try song("song.wav")
        try Data("keep".utf8).write(to: folder.file("out.flac"))
        let refused = try export(["-o", "out.flac"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasSuffix("/out.flac already exists; use --force to replace it\n"), "\(refused.stderr)")
        #expect(try Data(contentsOf: folder.file("out.flac")) == Data("keep".utf8))
        #expect(try export(["-o", "out.flac", "--force"], in: folder).status == 0)
        #expect(try decodedSamples(folder.file("out.flac")) == Self.exact)
    }

    @Test func opusRefusesARateItCannotHold() throws {
        guard Self.hasEncoder("libopus") else { return }
        let folder = try song("song.wav", rate: 44100)
        let result = try export(["-o", "out.opus"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("slowpoke: error: cannot write out.opus: Opus cannot hold song.wav's 44100 Hz audio; export to .m4a, .wav, .flac"), "\(result.stderr)")
        #expect(try folder.listing() == ["song.slowpoke", "song.wav"])
    }

    @Test func mp3RefusesMoreThanTwoChannels() throws {
        guard Self.hasEncoder("libmp3lame") else { return }
        let folder = try song("song.flac", codec: ["-ac", "6"])
        try #require(try stream(folder.file("song.flac"))["channels"] as? Int == 6)
        let result = try export(["-o", "out.mp3"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("slowpoke: error: cannot write out.mp3: MP3 cannot hold song.flac's 6 channels; export to .m4a, .wav, .flac"), "\(result.stderr)")
        #expect(try folder.listing() == ["song.flac", "song.slowpoke"])
    }

    @Test func anInterruptLeavesNothing() throws {
        let folder = try song("song.flac", edits: [["scale", "--range", "0-10", "--rate", "1/32"]])
        let run = try TestSupport.interrupt(["export", "-o", "out.m4a", "--progress", "json"], in: folder.url, signal: SIGINT) {
            try folder.listing().count >= 3
        }
        #expect(run.wasRunning)
        #expect(run.status == 130)
        #expect(run.stderr.hasSuffix("{\"event\":\"error\",\"message\":\"interrupted; no output was written\"}\n"), "\(run.stderr)")
        #expect(try folder.listing() == ["song.flac", "song.slowpoke"])
    }

    /// MP3 (with its LAME header) and Ogg Opus state a length that includes the encoder's
    /// padding (8.046 s and 8.0065 s for 8 s of sound): the timeline is the sound's own length,
    /// and a WAV export is exactly as long as the timeline, with sound to its end.
    @Test(arguments: [("tone.mp3", ["-c:a", "libmp3lame"], 44100), ("tone.opus", ["-c:a", "libopus"], 48000)])
    func paddedCodecsAreTheirSoundsLength(name: String, codec: [String], rate: Int) throws {
        let folder = try TemporaryFolder("padded")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=8"]
                                        + codec + ["-y", folder.file(name).path])
        #expect(made.status == 0, "\(made.stderr)")
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", name], in: folder.url)
        #expect(opened.stdout.contains(": 8 s, audio"), "\(opened.stdout)")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["scale", "--range", "1-2", "--rate", "0.5"], in: folder.url).status == 0)
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "-o", "out.wav", "--progress", "none"], in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        let frames = try TestSupport.ffprobe(folder.file("out.wav"), ["-show_streams"])
        let stream = try #require((frames["streams"] as? [[String: Any]])?.first)
        #expect(stream["duration_ts"] as? Int == 9 * rate, "\(String(describing: stream["duration_ts"]))")
        let samples = try TestSupport.decodeAudio(folder.file("out.wav"), sampleRate: rate)
        let lastLoud = samples.lastIndex { abs($0) > 0.01 } ?? 0
        #expect(samples.count - lastLoud < rate / 500, "\(samples.count - lastLoud) silent samples at the end")
    }
}
