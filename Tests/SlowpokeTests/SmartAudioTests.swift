import Foundation
import Testing
import TestSupport

/// Smart audio: an edited export keeps the source's own audio packets where the timeline leaves
/// the audio unchanged and renders only the edited stretches. Checked with ffprobe's packet
/// hashes, ffmpeg's decode and an FFT, never with slowpoke's own reading.
@Suite struct SmartAudioTests {
    /// A 24 s 320x240 30 fps H.264 movie with a steady 440 Hz tone (faded in and out over
    /// 0.2 s), its audio made with `audio` ffmpeg arguments, in `container`: made once per test
    /// process for each audio and container (``GeneratedMedia``), copied into `folder`.
    func toneMovie(_ folder: TemporaryFolder, audio: [String], container: String) throws -> URL {
        try GeneratedMedia.copy(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=24",
                                 "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=24,volume=0.5,afade=t=in:d=0.2,afade=t=out:st=23.8:d=0.2",
                                 "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p"] + audio + ["-shortest"],
                                as: "tone.\(container)", in: folder)
    }

    func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// Every audio packet's MD5, in order.
    func packetHashes(_ file: URL) throws -> [String] {
        let result = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_packets", "-show_data_hash", "md5",
                                                      "-show_entries", "packet=data_hash", "-of", "csv=p=0", file.path])
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The largest high-frequency (> 6 kHz) energy of any 5 ms window of `samples` over its
    /// median, leaving out the fades at both ends; and how many windows were measured.
    func clickScore(_ samples: [Float]) -> (score: Double, windows: Int) {
        let n = 256, skip = 48000 / 4
        var energies: [Double] = []
        var start = skip
        let window = (0..<n).map { k in 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n)) }
        while start + n <= samples.count - skip {
            var re = [Double](repeating: 0, count: n)
            for k in 0..<n { re[k] = Double(samples[start + k]) * window[k] }
            var im = [Double](repeating: 0, count: n)
            Signals.fft(&re, &im)
            let lowest = Int(6000.0 * Double(n) / 48000)
            var energy = 0.0
            for k in lowest..<(n / 2) { energy += re[k] * re[k] + im[k] * im[k] }
            energies.append(energy)
            start += 240
        }
        let median = energies.sorted()[energies.count / 2]
        return ((energies.max() ?? 0) / max(median, 1e-30), energies.count)
    }

    /// The issue's case: a steady tone scaled at 5-7 s and cut at 12-13 s. Every seam between
    /// copied and encoded audio is inaudible, and the output is as long as the timeline.
    @Test(arguments: [("mp4", ["-c:a", "aac", "-b:a", "128k"], false), ("mkv", ["-c:a", "aac", "-b:a", "128k"], false),
                      ("mov", ["-c:a", "pcm_s16le"], false), ("mp4", ["-c:a", "aac", "-b:a", "128k"], true),
                      ("mkv", ["-c:a", "libopus", "-b:a", "128k"], false)])
    func seamsAreInaudible(container: String, audio: [String], constantRate: Bool) throws {
        let folder = try TemporaryFolder("smart-seams")
        let movie = try toneMovie(folder, audio: audio, container: container)
        #expect(try slowpoke("open", movie.lastPathComponent, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "5-7", "--rate", "0.5", in: folder).status == 0)
        #expect(try slowpoke("remove", "--range", "12-13", in: folder).status == 0)
        // --fps re-encodes the video and takes the same audio path.
        let result = constantRate ? try slowpoke("export", "--fps", "30", "--preset", "ultrafast", "--progress", "none", in: folder)
            : try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("audio copied where unchanged, re-encoded where edited"), "\(result.stdout)")
        let out = folder.file(constantRate ? "tone-30fps.\(container)" : "tone-slowpoke.\(container)")
        let samples = try TestSupport.decodeAudio(out)
        // 24 s + 2 s - 1 s, each edit fitted to whole codec frames (moving by less than half a
        // frame, 512 samples); AAC's decoders add up to one frame of padding at the very end.
        #expect(samples.count >= 25 * 48000 - 1024 && samples.count <= 25 * 48000 + 2048, "\(samples.count) samples")
        let (score, windows) = clickScore(samples)
        #expect(windows > 4500)
        #expect(score < 4, "a seam clicks: high-frequency energy \(score)x its median")
        // The pitch holds through the scaled stretch (5-9 s out) and after the cut.
        for at in [3.0, 7.0, 15.0] {
            let f = Signals.dominantFrequency(samples, from: Int(at * 48000), count: 16384)
            #expect(abs(f - 440) < 3, "\(f) Hz at \(at) s")
        }
    }

    /// The source's packets outside the edit come through byte for byte, on both sides of it.
    /// AAC frames are 1024 samples: a 1.75 s slowdown adds 84,000 samples, 82.03 frames, so the
    /// export fits it to 82 frames (0.7 ms shorter) and the packets after it stay on the grid of
    /// those before it; the same for Opus's 20 ms packets in Matroska (87.5 frames). PCM has no
    /// frames: all of it is copied. With `--exact` the timeline keeps its length to the sample,
    /// the packets fall out of step, the longer run (the 18 s after the edit) is copied and the
    /// 4.9 s before it re-encoded, which the export says.
    @Test(arguments: [("mp4", ["-c:a", "aac", "-b:a", "128k"], false), ("mkv", ["-c:a", "aac", "-b:a", "128k"], false),
                      ("mkv", ["-c:a", "libopus", "-b:a", "128k"], false), ("mov", ["-c:a", "pcm_s16le"], false),
                      ("mp4", ["-c:a", "aac", "-b:a", "128k"], true)])
    func untouchedPacketsAreTheSourcesOwn(container: String, audio: [String], exact: Bool) throws {
        let folder = try TemporaryFolder("smart-packets")
        let movie = try toneMovie(folder, audio: audio, container: container)
        #expect(try slowpoke("open", movie.lastPathComponent, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "5-6.75", "--rate", "0.5", in: folder).status == 0)
        let result = exact ? try slowpoke("export", "--exact", "--progress", "none", in: folder)
            : try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let out = folder.file("tone-slowpoke.\(container)")
        let source = try packetHashes(movie), output = Set(try packetHashes(out))
        #expect(source.count > 500)
        // Packets wholly before 5 s and after 6.75 s, less a margin of 8 packets at each seam.
        let perSecond = Double(source.count) / 24
        let margin = 8
        let before = 0..<(Int(5 * perSecond) - margin), after = (Int(6.75 * perSecond) + margin)..<(source.count - margin)
        let afterKept = after.filter { output.contains(source[$0]) }.count
        #expect(Double(afterKept) >= 0.97 * Double(after.count), "\(afterKept) of \(after.count) packets after the edit copied")
        let beforeKept = before.filter { output.contains(source[$0]) }.count
        if exact {
            #expect(result.stderr.contains("re-encoded"), "\(result.stderr)")
        } else {
            #expect(Double(beforeKept) >= 0.97 * Double(before.count), "\(beforeKept) of \(before.count) packets before the edit copied")
            #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        }
        // The bit rate stays the source's: from the packets (Matroska states none per stream).
        let rates = try [movie, out].map { file -> Double in
            let listed = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size,pts_time",
                                                          "-of", "csv=p=0", file.path]).stdout
            let rows = listed.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
            guard let first = rows.first, let last = rows.last, last[0] > first[0] else { return 0 }
            return rows.reduce(0) { $0 + $1[1] } * 8 / (last[0] - first[0])
        }
        #expect(rates[0] > 0 && abs(rates[1] - rates[0]) <= 0.1 * rates[0], "bit rates \(rates)")
    }

    /// Beeps every second stay on their exact times through a slowdown, in every container.
    @Test(arguments: [("mp4", ["-c:a", "aac", "-b:a", "128k"]), ("mkv", ["-c:a", "libopus", "-b:a", "96k"]),
                      ("mov", ["-c:a", "pcm_s16le"]), ("webm", ["-c:a", "aac", "-b:a", "128k"])])
    func beepsStayOnTheExactMap(container: String, audio: [String]) throws {
        let folder = try TemporaryFolder("smart-sync")
        // "webm" stands for AAC in Matroska (webm itself holds only Opus and Vorbis).
        let movie = folder.file("beeps.\(container == "webm" ? "mkv" : container)")
        // A 20 ms 1 kHz beep at every whole second from 1 s.
        let beeps = "aevalsrc='0.8*sin(2*PI*1000*t)*lt(mod(t\\,1)\\,0.02)*gte(t\\,1)':s=48000:d=16"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=16",
                                                   "-f", "lavfi", "-i", beeps, "-af", "aformat=channel_layouts=stereo",
                                                   "-c:v", "libx264", "-g", "30"] + audio + ["-shortest", "-y", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", movie.lastPathComponent, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "4.5-7.5", "--rate", "0.5", in: folder).status == 0)
        let result = try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let out = folder.file("beeps-slowpoke.\(movie.pathExtension)")
        let samples = try TestSupport.decodeAudio(out)
        // The output's own first video frame is the zero: Matroska cannot start a track before
        // 0, so a first encoded frame before it would move every stream later (it no longer
        // does: a bridge in the first frame keeps the grid), and the check says by how much.
        let outProbe = try TestSupport.ffprobe(out, ["-select_streams", "v:0", "-show_entries", "stream=start_time"])
        let outStart = Double((outProbe["streams"] as? [[String: Any]])?.first?["start_time"] as? String ?? "0") ?? 0
        #expect(outStart == 0, "the video starts at \(outStart) s")
        // Onsets at a fifth of the beep's 0.8: an AAC encoder's pre-echo before a re-encoded
        // attack (the slowed beeps) reaches 0.05 up to 3 ms early, by where the attack falls in
        // its frame, though the render puts it exactly (0.05 ms in PCM, measured).
        let found = Signals.onsets(samples, threshold: 0.2, quiet: 4800).map { Double($0) / 48000 - outStart }
        // The oracle is ffmpeg's own decode of the source: the beeps' times from its first video
        // frame (Matroska starts the video 7 ms late for Opus's pre-skip, and keeps an AAC
        // encoder's 1024 priming samples, moving the video 21 ms later instead), mapped through
        // the edit: before 4.5 s as they are, inside at 4.5 + 2(t - 4.5), after at t + 3.
        let probe = try TestSupport.ffprobe(movie, ["-select_streams", "v:0", "-show_entries", "stream=start_time"])
        let videoStart = Double((probe["streams"] as? [[String: Any]])?.first?["start_time"] as? String ?? "0") ?? 0
        let sourceBeeps = Signals.onsets(try TestSupport.decodeAudio(movie), threshold: 0.2, quiet: 4800).map { Double($0) / 48000 - videoStart }
        #expect(sourceBeeps.count == 15, "\(sourceBeeps)")
        // The 3 s the slowdown adds are fitted to whole codec frames (141 AAC frames, 3.008 s;
        // 150 Opus frames, exactly 3 s; PCM any sample): the video follows the same map, and
        // every beep must be where it puts it.
        let added = container == "mp4" || container == "webm" ? (3.0 * 48000 / 1024).rounded() * 1024 / 48000 : 3.0
        let expected = sourceBeeps.map { t in t < 4.5 ? t : t < 7.5 ? 4.5 + (3 + added) / 3 * (t - 4.5) : t + added }
        #expect(found.count == expected.count, "\(found)")
        // Matroska's clock is the millisecond: the source's video start is rounded by up to
        // 0.5 ms, and that error doubles inside the half-speed range.
        let tolerance = movie.pathExtension == "mkv" ? 0.0015 : 0.001
        let check = {
            for (beep, want) in zip(found, expected) {
                #expect(abs(beep - want) <= tolerance, "beep at \(beep) s, expected \(want) s")
            }
        }
        // Opus in Matroska once put a bump at a quarter of the beep's level 12 ms before each
        // slowed attack: the onsets were found in audio read after a seek, which the
        // millisecond timestamps place up to a tick off, so the piece before an onset held the
        // start of its attack. Onsets are now found in the audio as the render reads it.
        check()
    }

    /// A musician's case: a song slowed in one passage keeps the rest of it as it was, in an
    /// audio-only export too (AAC into .m4a, PCM into .wav).
    @Test(arguments: [("m4a", ["-c:a", "aac", "-b:a", "160k"]), ("wav", ["-c:a", "pcm_s16le"])])
    func aSongSlowedInOnePassageKeepsTheRest(container: String, audio: [String]) throws {
        let folder = try TemporaryFolder("smart-song")
        let song = folder.file("song.\(container)")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                                   "sine=frequency=440:sample_rate=44100:duration=30,volume=0.5,afade=t=in:d=0.2,afade=t=out:st=29.8:d=0.2",
                                                   "-ac", "2"] + audio + ["-y", song.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", song.lastPathComponent, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "10-12", "--rate", "0.5", in: folder).status == 0)
        let result = try slowpoke("export", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("audio copied where unchanged, re-encoded where edited"), "\(result.stdout)")
        let out = folder.file("song-slowpoke.\(container)")
        // The 18 s after the passage (less a few packets at the seam) are the source's own: its
        // packets for AAC; for WAV, whose reader cuts packets as it likes, its samples.
        if container == "m4a" {
            let source = try packetHashes(song), output = Set(try packetHashes(out))
            let perSecond = Double(source.count) / 30
            let after = (Int(12 * perSecond) + 8)..<(source.count - 8)
            let kept = after.filter { output.contains(source[$0]) }.count
            #expect(after.count > 100 && Double(kept) >= 0.97 * Double(after.count), "\(kept) of \(after.count) packets after the passage")
        } else {
            let raw = { (file: URL) throws -> Data in
                let pcm = folder.file(file.lastPathComponent + ".s16")
                _ = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-f", "s16le", "-y", pcm.path])
                return try Data(contentsOf: pcm)
            }
            let source = try raw(song), output = try raw(out)
            // Bytes from 12.1 s of the source and 14.1 s of the output on, 4 bytes a frame.
            let from = { (seconds: Double) in Int(seconds * 44100) * 4 }
            let a = source[from(12.1)...], b = output[from(14.1)...]
            #expect(a.count > 44100 * 4 * 17 && a == b, "\(a.count) and \(b.count) bytes")
        }
        let samples = try TestSupport.decodeAudio(out)
        #expect(abs(samples.count - 32 * 48000) <= 1100, "\(samples.count) samples")
        let (score, windows) = clickScore(samples)
        #expect(windows > 5000 && score < 4, "high-frequency energy \(score)x its median over \(windows) windows")
    }

    /// A long edit in a longer movie, exported `--exact`: the 25 s before a slowdown are off the
    /// copied packets' frame grid, so 35 s are encoded, shared by two workers that cut the stretch inside the
    /// unchanged audio; the cut between their encoders is as inaudible as every other seam.
    @Test func aLongStretchSharedByWorkersHasNoSeam() throws {
        let folder = try TemporaryFolder("smart-workers")
        let movie = folder.file("long.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=15:duration=60",
                                                   "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60,volume=0.5,afade=t=in:d=0.2,afade=t=out:st=59.8:d=0.2",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-y", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "long.mp4", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "25-30", "--rate", "0.5", in: folder).status == 0)
        // --exact keeps the 2.5 s the edit adds to the sample (117.19 AAC frames), which puts
        // the audio before it off the copied packets' grid.
        let result = try slowpoke("export", "--exact", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("audio copied where unchanged, re-encoded where edited"), "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("24.9 s of unchanged audio is re-encoded"), "\(result.stderr)")
        let samples = try TestSupport.decodeAudio(folder.file("long-slowpoke.mp4"))
        #expect(samples.count >= 65 * 48000 && samples.count <= 65 * 48000 + 1024, "\(samples.count) samples")
        let (score, windows) = clickScore(samples)
        #expect(windows > 12_000 && score < 4, "high-frequency energy \(score)x its median over \(windows) windows")
        for at in [10.0, 24.8, 25.1, 40.0, 60.0] {
            let f = Signals.dominantFrequency(samples, from: Int(at * 48000), count: 8192)
            #expect(abs(f - 440) < 4, "\(f) Hz at \(at) s")
        }
    }
}
