import Foundation
import TestSupport
import Testing

/// `slowpoke stretch`, run as a user would, with the output decoded and measured by ffmpeg.
@Suite struct StretchCommandTests {
    func toneFolder(seconds: Double = 2) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("stretch")
        try TestSupport.makeAudio("sine=frequency=440", seconds: seconds, to: folder.file("tone.wav"))
        return folder
    }

    func frequency(_ samples: [Float]) -> Double {
        Signals.dominantFrequency(samples, from: samples.count / 2 - 8192, count: 16384)
    }

    @Test(arguments: [("spectral", "0.25", 440.0), ("timeDomain", "4", 440.0), ("varispeed", "0.5", 220.0), ("varispeed", "2", 880.0)])
    func pitchAndLength(algorithm: String, rate: String, expected: Double) throws {
        let folder = try toneFolder(seconds: 3)
        let result = try slowpoke("stretch", "tone.wav", "out.wav", "--rate", rate, "--algorithm", algorithm, "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try TestSupport.ffprobe(folder.file("out.wav"), ["-show_streams"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        let expectedFrames = Int((3.0 * 48000 / (try Double(fraction(rate)))).rounded())
        #expect(stream["duration_ts"] as? Int == expectedFrames)
        #expect(stream["channels"] as? Int == 2)
        let f = frequency(try TestSupport.decodeAudio(folder.file("out.wav")))
        #expect(abs(f - expected) / expected < 0.005, "\(algorithm) at \(rate): \(f) Hz")
    }

    /// A steady tone keeps its level through every algorithm and rate (R2 on a tone that
    /// starts at its first sample once played 15 dB quiet: it took its phases from silence
    /// read before the file's start).
    @Test(arguments: ["spectral", "timeDomain"])
    func aToneKeepsItsLevel(algorithm: String) throws {
        let folder = try toneFolder(seconds: 3)
        let source = try TestSupport.decodeAudio(folder.file("tone.wav"))
        let level = Signals.rms(source[(source.count / 4)..<(3 * source.count / 4)])
        var checked = 0
        for rate in ["0.5", "1/7", "3"] {
            let result = try slowpoke("stretch", "tone.wav", "out.wav", "--rate", rate, "--algorithm", algorithm, "--force", "--progress", "none", in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let samples = try TestSupport.decodeAudio(folder.file("out.wav"))
            let out = Signals.rms(samples[(samples.count / 4)..<(3 * samples.count / 4)])
            let dB = 20 * log10(Double(out / level))
            #expect(abs(dB) < 2, "\(algorithm) at \(rate): \(dB) dB")
            checked += 1
        }
        #expect(checked == 3)
    }

    func fraction(_ text: String) throws -> Double {
        let parts = text.split(separator: "/").map { Double($0)! }
        return parts.count == 2 ? parts[0] / parts[1] : parts[0]
    }

    @Test func twelveSemitonesUpToFLAC() throws {
        let folder = try toneFolder()
        let result = try slowpoke("stretch", "tone.wav", "up.flac", "--rate", "1", "--semitones", "12", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote up.flac: 96000 frames (2.000 s) at 48000 Hz"))
        let probe = try TestSupport.ffprobe(folder.file("up.flac"), ["-show_streams"])
        #expect((probe["streams"] as? [[String: Any]])?.first?["codec_name"] as? String == "flac")
        let f = frequency(try TestSupport.decodeAudio(folder.file("up.flac")))
        #expect(abs(f - 880) / 880 < 0.005, "+12 semitones: \(f) Hz")
    }

    @Test func aMoviesAudioCanBeStretched() throws {
        let folder = try TemporaryFolder("stretch")
        try folder.copy(media: "clip60.mp4")
        let result = try slowpoke("stretch", "clip60.mp4", "beeps.wav", "--rate", "1/2", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try TestSupport.decodeAudio(folder.file("beeps.wav"))
        #expect(samples.count == 960_000)
        // Ten beeps, now two seconds apart.
        let onsets = Signals.onsets(samples, threshold: 0.05, quiet: 24000)
        #expect(onsets.count == 10)
        for (k, onset) in onsets.enumerated() { #expect(abs(onset - k * 96000) < 1200, "beep \(k) at \(onset)") }
    }

    /// Each bad input: a clear message, a non-zero exit, and no output file.
    @Test(arguments: [
        (["--rate", "64"], "rate 64 is outside the supported 0.03125 to 32"),
        (["--rate", "1/40"], "rate 0.025 is outside the supported 0.03125 to 32"),
        (["--rate", "0"], "rate 0 would stop time; use a rate from 0.03125 (slowest) to 32 (fastest)"),
        (["--rate", "2", "--semitones", "30"], "30 semitones is outside the supported -24 to +24"),
        (["--rate", "2", "--semitones=-24.5"], "-24.5 semitones is outside the supported -24 to +24"),
        (["--rate", "2", "--algorithm", "varispeed", "--semitones", "3"], "--semitones works with the spectral and timeDomain algorithms; with varispeed the pitch follows the rate"),
    ])
    func badSettingsAreRefused(flags: [String], message: String) throws {
        let folder = try toneFolder(seconds: 0.5)
        let result = try TestSupport.run(TestSupport.slowpoke, ["stretch", "tone.wav", "out.wav"] + flags, in: folder.url)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: \(message)\n")
        #expect(try folder.listing() == ["tone.wav"])
    }

    @Test func badFilesAreRefused() throws {
        let folder = try TemporaryFolder("stretch")
        try Data("not audio at all\n".utf8).write(to: folder.file("notes.wav"))
        try Data().write(to: folder.file("empty.wav"))
        try folder.copy(media: "noaudio.mp4")
        let cases: [(String, String)] = [
            ("notes.wav", "notes.wav is not a movie or audio file that slowpoke can read"),
            ("empty.wav", "empty.wav is not a movie or audio file that slowpoke can read (the file is empty)"),
            ("noaudio.mp4", "noaudio.mp4 is not a movie or audio file that slowpoke can read (it has no audio stream)"),
            ("missing.wav", "cannot open"),
        ]
        for (input, message) in cases {
            let result = try slowpoke("stretch", input, "out.wav", "--rate", "2", in: folder)
            #expect(result.status == 1, "\(input)")
            #expect(result.stderr.hasPrefix("slowpoke: error: ") && result.stderr.contains(message), "\(input): \(result.stderr)")
        }
        #expect(try folder.listing() == ["empty.wav", "noaudio.mp4", "notes.wav"])
    }

    @Test func outputsAreProtected() throws {
        let folder = try toneFolder(seconds: 0.5)
        try Data("keep me".utf8).write(to: folder.file("taken.wav"))
        let taken = try slowpoke("stretch", "tone.wav", "taken.wav", "--rate", "2", in: folder)
        #expect(taken.stderr.hasSuffix("taken.wav already exists; use --force to replace it\n"))
        #expect(try Data(contentsOf: folder.file("taken.wav")) == Data("keep me".utf8))
        let same = try slowpoke("stretch", "tone.wav", "tone.wav", "--rate", "2", "--force", in: folder)
        #expect(same.stderr.hasSuffix("tone.wav is the input; choose another output name\n"))
        let mp3 = try slowpoke("stretch", "tone.wav", "out.mp3", "--rate", "2", in: folder)
        #expect(mp3.stderr == "slowpoke: error: slowpoke stretch writes .wav or .flac, not .mp3\n")
        let nowhere = try slowpoke("stretch", "tone.wav", "no/such/folder/out.wav", "--rate", "2", in: folder)
        #expect(nowhere.stderr.contains("does not exist"))
        let forced = try slowpoke("stretch", "tone.wav", "taken.wav", "--rate", "2", "--force", "--progress", "none", in: folder)
        #expect(forced.status == 0)
        #expect(try folder.listing() == ["taken.wav", "tone.wav"])
        // An output the system refuses to write fails cleanly too.
        let refused = try slowpoke("stretch", "tone.wav", "/proc/slowpoke.wav", "--rate", "2", "--progress", "none", in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("slowpoke: error: cannot write /proc/slowpoke.wav"), "\(refused.stderr)")
    }

    @Test func anInterruptLeavesNothingBehind() throws {
        let folder = try toneFolder(seconds: 30)
        // Interrupt once the work is under way (its temporary file exists).
        let run = try TestSupport.interrupt(["stretch", "tone.wav", "slow.wav", "--rate", "1/8", "--progress", "json"],
                                            in: folder.url, signal: SIGINT) { try folder.listing().count >= 2 }
        #expect(run.wasRunning, "the stretch finished before it could be interrupted")
        #expect(run.status == 130)
        #expect(run.stderr.hasSuffix("{\"event\":\"error\",\"message\":\"interrupted; no output was written\"}\n"))
        #expect(try folder.listing() == ["tone.wav"])
    }

    @Test func progressIsReportedAsJSON() throws {
        let folder = try toneFolder()
        let result = try slowpoke("stretch", "tone.wav", "out.wav", "--rate", "0.5", "--progress", "json", in: folder)
        let events = result.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.count >= 2)
        // Progress up to 1, then the done event naming the output and its length (2 s at 0.5x: 4 s).
        let progress = events.dropLast()
        #expect(progress.allSatisfy { $0["event"] as? String == "progress" })
        #expect(progress.last?["fraction"] as? Double == 1)
        #expect(events.last?["event"] as? String == "done" && (events.last?["output"] as? String)?.hasSuffix("/out.wav") == true
                && events.last?["duration"] as? Double == 4, "\(events.last ?? [:])")
    }
}
