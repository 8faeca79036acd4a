import Foundation
import TestSupport
import Testing

/// Reversed ranges (issue 42) in `export --fps` and in the audio every export renders, checked
/// with ffmpeg's decoder (frame MD5s of a lossless encode), an FFT of the decoded audio and
/// ffmpeg's subtitle reader, never with slowpoke's own reading.
@Suite struct ReverseExportTests {
    /// A `seconds` long 30 fps testsrc2 movie (a frame counter: every frame differs) with a
    /// rising sine sweep (200 Hz to 2000 Hz over 6 s: 200 + 300 t Hz) and, with `cues`, SRT
    /// subtitles (mov_text), in `name` (QuickTime: exact frame times; PCM audio), GOPs of `gop` frames.
    static func movie(in folder: TemporaryFolder, name: String = "movie.mov", size: String = "320x240", seconds: Int = 6,
                      gop: Int = 30, cues: String? = nil) throws -> URL {
        let movie = folder.file(name)
        var inputs = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=\(seconds)",
                      "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(200*t+150*t*t)):s=48000:d=\(seconds)"]
        var maps = ["-map", "0:v", "-map", "1:a"]
        if let cues {
            try Data(cues.utf8).write(to: folder.file("cues.srt"))
            inputs += ["-i", folder.file("cues.srt").path]
            maps += ["-map", "2:s", "-c:s", "mov_text"]
        }
        let encode = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "\(gop)", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le"]
        // Without cues (whose file is the folder's own) made once per test process for each
        // shape (GeneratedMedia): ten tests start from the same 6 s movie.
        guard cues != nil else { return try GeneratedMedia.copy(inputs + maps + encode, as: name, in: folder) }
        let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + inputs + maps + encode + ["-y", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// Opens `movie`, applies `edits` (each a command and its flags) and exports with `flags`
    /// to `output`; returns slowpoke's stderr.
    @discardableResult
    static func export(_ movie: URL, edits: [[String]], flags: [String], to output: URL) throws -> String {
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = movie.deletingPathExtension().appendingPathExtension("slowpoke").path
        for edit in edits {
            let result = try TestSupport.run(TestSupport.slowpoke, [edit[0], document] + edit.dropFirst())
            try #require(result.status == 0, "\(edit): \(result.stderr)")
        }
        let result = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none", "-o", output.path] + flags)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stderr
    }

    /// Output frames `k` of a 30 fps export of a 30 fps source that plays 2-4 s backwards at
    /// `speed` (1 or 1/2, the reversed range then lasting 2 / speed seconds).
    static func expectedFrames(count: Int, speed: Double, reversedFrom start: Int = 60, sourceFrames: Int = 60) -> [Int] {
        let length = Int((Double(sourceFrames) / speed).rounded())
        return (0..<count).map { k in
            if k < start { return k }
            if k < start + length {
                // Source time reached going backwards, and the frame just before it.
                let s = Double(start + sourceFrames) - Double(k - start) * speed
                return Int((s - 1).rounded(.up))
            }
            return k - length + sourceFrames
        }
    }

    /// (a), (b): `reverse --range 2-4`, exported losslessly at 30 fps: frames 60..119 show source
    /// frames 119..60 and everything else is in order; with `scale --range 2-4 --rate 0.5` on
    /// top, each source frame of the range shows twice, last to first.
    @Test(arguments: [1.0, 0.5])
    func reversedRangeShowsTheSourceFramesLastToFirst(speed: Double) throws {
        let folder = try TemporaryFolder("reverse-frames")
        let movie = try Self.movie(in: folder)
        let source = try TestSupport.frameMD5s(movie)
        try #require(source.md5s.count == 180 && Set(source.md5s).count == 180, "every source frame differs")
        let out = folder.file("out.mkv")
        var edits = [["reverse", "--range", "2-4"]]
        if speed != 1 { edits.append(["scale", "--range", "2-4", "--rate", "0.5"]) }
        try Self.export(movie, edits: edits, flags: ["--fps", "30", "--crf", "0", "--preset", "ultrafast"], to: out)
        let output = try TestSupport.frameMD5s(out)
        #expect(output.errors == "", "\(output.errors)")
        let expected = Self.expectedFrames(count: speed == 1 ? 180 : 240, speed: speed)
        let shown = output.md5s.map { md5 in source.md5s.firstIndex(of: md5) ?? -1 }
        #expect(shown.count == expected.count, "\(shown.count) frames")
        let wrong = zip(shown, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "frames (output, shown, expected): \(wrong.prefix(12).map { ($0.offset, $0.element.0, $0.element.1) })")
        // The checked cases: every frame, the reversed ones among them.
        #expect(zip(shown, expected).filter { $0 == $1 }.count == expected.count && expected.count >= 180)
        if speed == 1 {
            #expect(Array(shown[60..<120]) == Array((60..<120).reversed()))
        } else {
            #expect(Array(shown[60..<180]) == (60..<120).reversed().flatMap { [$0, $0] })
        }
    }

    /// A 1080p movie whose GOP (90 frames) is longer than a backward decoding window (about 50
    /// 1080p pictures), reversed whole: every window re-decodes from its keyframe, and the
    /// frames still come out last to first, exactly.
    @Test func windowsShorterThanAGOPStillGiveEveryFrame() throws {
        let folder = try TemporaryFolder("reverse-window")
        let movie = try Self.movie(in: folder, size: "1920x1080", seconds: 3, gop: 90)
        let source = try TestSupport.frameMD5s(movie)
        try #require(source.md5s.count == 90 && Set(source.md5s).count == 90)
        let out = folder.file("out.mkv")
        try Self.export(movie, edits: [["reverse", "--range", "0-3"]], flags: ["--fps", "30", "--crf", "0", "--preset", "ultrafast"], to: out)
        let shown = try TestSupport.frameMD5s(out).md5s.map { source.md5s.firstIndex(of: $0) ?? -1 }
        #expect(shown == Array((0..<90).reversed()), "\(shown)")
    }

    /// (d) `--frames blend` and `interpolate` on a reversed range at half speed: each output
    /// frame is source frame i, or i mixed with (or moved towards) i - 1, the one that plays
    /// next backwards, so the frames stay in reverse order: the nearest source frame (by mean
    /// difference) never goes up inside the range, and falls from 119 to 60.
    @Test(arguments: ["blend", "interpolate"])
    func blendAndInterpolationPlayBackwards(frames: String) throws {
        let folder = try TemporaryFolder("reverse-\(frames)")
        let movie = try Self.movie(in: folder)
        let out = folder.file("out.mkv")
        try Self.export(movie, edits: [["reverse", "--range", "2-4"], ["scale", "--range", "2-4", "--rate", "0.5"]],
                        flags: ["--fps", "30", "--frames", frames, "--crf", "0", "--preset", "ultrafast"], to: out)
        let source = try Self.grayFrames(movie), output = try Self.grayFrames(out)
        try #require(source.count == 180 && output.count == 240, "\(source.count), \(output.count)")
        // The reversed range plays source frames 60-119; its neighbours are candidates too.
        func nearest(_ frame: [UInt8]) -> Int {
            let differences = (50..<130).map { Self.meanDifference(frame, source[$0]) }
            return 50 + differences.indices.min { differences[$0] < differences[$1] }!
        }
        let inside = (60..<180).map { nearest(output[$0]) }
        #expect(inside.first == 119 && inside.last == 60, "\(inside)")
        let rises = zip(inside, inside.dropFirst()).filter { $1 > $0 }
        #expect(rises.isEmpty, "\(inside)")
        // Half speed backwards: every other frame is a blend of two source frames, equally
        // near both; the others are exact.
        let exact = zip(60..<180, inside).filter { Self.meanDifference(output[$0], source[$1]) == 0 }.count
        #expect(exact >= 55 && exact <= 65, "\(frames): \(exact) exact frames of 120")
        #expect(inside.count == 120)
    }

    /// Interlaced 25i (DeinterlaceTests' 2 s footage: each field one picture of a 50p pattern),
    /// 0.4-1.6 s reversed, exported at 50 fps: the deinterlaced fields of the range come out last
    /// to first, each nearest to its own 50p picture.
    @Test func interlacedFieldsPlayBackwards() throws {
        let folder = try TemporaryFolder("reverse-fields")
        let (reference, interlaced) = try DeinterlaceTests.footage(in: folder)
        let out = folder.file("out.mkv")
        try Self.export(interlaced, edits: [["reverse", "--range", "0.4-1.6"]], flags: ["--fps", "50", "--crf", "0", "--preset", "ultrafast"], to: out)
        let pictures = try Self.grayFrames(reference), output = try Self.grayFrames(out)
        try #require(pictures.count == 100 && output.count == 100, "\(pictures.count), \(output.count)")
        let expected = (0..<100).map { k in k < 20 || k >= 80 ? k : 99 - k }
        let shown = output.enumerated().map { k, frame in
            (max(0, expected[k] - 3)...min(99, expected[k] + 3)).min { Self.meanDifference(frame, pictures[$0]) < Self.meanDifference(frame, pictures[$1]) }!
        }
        let wrong = zip(shown, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty && shown.count == 100, "\(wrong.prefix(12).map { ($0.offset, $0.element.0, $0.element.1) })")
    }

    /// (c) The sweep rises before and after the reversed range and falls inside it, at -1 and
    /// at -0.5 (pitch kept), with spectral and timeDomain; the joins at both ends have no click.
    @Test(arguments: [("spectral", 1.0), ("spectral", 0.5), ("timeDomain", 1.0), ("timeDomain", 0.5)])
    func sweepFallsInsideTheReversedRange(algorithm: String, speed: Double) throws {
        let folder = try TemporaryFolder("reverse-sweep")
        let movie = try Self.movie(in: folder)
        let out = folder.file("out.mkv")
        var edits = [["reverse", "--range", "2-4"]]
        if speed != 1 { edits.append(["scale", "--range", "2-4", "--rate", "0.5"]) }
        try Self.export(movie, edits: edits, flags: ["--fps", "30", "--algorithm", algorithm, "--preset", "ultrafast"], to: out)
        let samples = try TestSupport.decodeAudio(out)
        let length = 2 / speed
        #expect(abs(Double(samples.count) / 48000 - (4 + length)) < 0.03, "\(samples.count) samples")
        // Expected frequency at timeline time t: the source time playing there, 200 + 300 s Hz.
        func sourceTime(_ t: Double) -> Double { t < 2 ? t : t < 2 + length ? 4 - (t - 2) * speed : t - length + 2 }
        var checked = 0
        var inside: [Double] = []
        for t in stride(from: 0.25, to: 4 + length - 0.2, by: 0.25) where abs(t - 2) > 0.1 && abs(t - 2 - length) > 0.1 {
            let f = Signals.dominantFrequency(samples, from: Int((t - 0.04) * 48000), count: 4096)
            let wanted = 200 + 300 * sourceTime(t)
            #expect(abs(f - wanted) < max(25, wanted * 0.03), "\(algorithm) \(speed): at \(t) s \(f) Hz, wanted \(wanted)")
            if t > 2 && t < 2 + length { inside.append(f) }
            checked += 1
        }
        #expect(checked >= 20 && inside.count >= 6)
        #expect(zip(inside, inside.dropFirst()).allSatisfy { $1 < $0 }, "falling inside: \(inside)")
        // No click: energy above 5 kHz (where the sweep has almost none) in 5 ms windows within
        // 20 ms of each join stays within 3 times the most of the windows 30-100 ms from it.
        let energies = Self.highBandEnergies(samples)
        func clickRatio(_ energies: [(time: Double, energy: Double)], at join: Double) -> Double {
            let near = energies.filter { abs($0.time - join) < 0.02 }.map(\.energy)
            let around = energies.filter { abs($0.time - join) > 0.03 && abs($0.time - join) < 0.1 }.map(\.energy)
            #expect(near.count >= 12 && around.count >= 50)
            return (near.max() ?? .infinity) / max(around.max() ?? 0, 1e-12)
        }
        for join in [2.0, 2 + length] {
            let ratio = clickRatio(energies, at: join)
            #expect(ratio < 3, "\(algorithm) \(speed): the join at \(join) s has \(ratio) times the high-band energy around it")
        }
        // The measure hears a click: the source cut hard from 2 s forwards to 4 s backwards.
        let source = try TestSupport.decodeAudio(movie)
        let cut = Array(source[(96000 - 4800)..<96000]) + Array(source[(192000 - 4800)..<192000].reversed())
        let hard = clickRatio(Self.highBandEnergies(cut), at: 0.1)
        #expect(hard > 30, "a hard cut: \(hard)")
    }

    /// Audio-only export (AudioExporter) of a reversed range: the sweep falls inside it.
    @Test func audioOnlyExportPlaysBackwards() throws {
        let folder = try TemporaryFolder("reverse-audio")
        let wav = folder.file("sweep.wav")
        try TestSupport.makeAudio("aevalsrc=0.5*sin(2*PI*(200*t+150*t*t))", seconds: 6, to: wav)
        let out = folder.file("out.wav")
        try Self.export(wav, edits: [["reverse", "--range", "2-4"]], flags: [], to: out)
        let samples = try TestSupport.decodeAudio(out)
        #expect(abs(samples.count - 288000) <= 1, "\(samples.count) samples")
        var checked = 0
        for t in [1.0, 2.25, 2.75, 3.25, 3.75, 5.0] {
            let f = Signals.dominantFrequency(samples, from: Int((t - 0.04) * 48000), count: 4096)
            let s = t < 2 || t >= 4 ? t : 6 - t
            #expect(abs(f - (200 + 300 * s)) < 25, "at \(t) s: \(f) Hz")
            checked += 1
        }
        #expect(checked == 6)
    }

    /// A ramp across a reversed range (1x to 0.5x backwards in 4 steps, which the renderer
    /// joins into one Rubber Band run over mirrored frames): the sweep falls throughout the
    /// range, ever more slowly, and rises again after it.
    @Test func rampAcrossAReversedRangeFallsEverMoreSlowly() throws {
        let folder = try TemporaryFolder("reverse-ramp")
        let wav = folder.file("sweep.wav")
        try TestSupport.makeAudio("aevalsrc=0.5*sin(2*PI*(200*t+150*t*t))", seconds: 6, to: wav)
        let out = folder.file("out.wav")
        try Self.export(wav, edits: [["reverse", "--range", "2-4"], ["ramp", "--range", "2-4", "--from", "1", "--to", "0.5", "--steps", "4"]],
                        flags: [], to: out)
        let samples = try TestSupport.decodeAudio(out)
        let seconds = Double(samples.count) / 48000
        #expect(seconds > 6.7 && seconds < 6.85, "\(seconds) s")
        let inside = stride(from: 2.2, to: 4.65, by: 0.2).map { Signals.dominantFrequency(samples, from: Int(($0 - 0.04) * 48000), count: 4096) }
        #expect(inside.count == 13 && abs(inside[0] - 1340) < 40 && abs(inside[12] - 830) < 40, "\(inside)")
        #expect(zip(inside, inside.dropFirst()).allSatisfy { $1 < $0 }, "falling: \(inside)")
        let drops = zip(inside, inside.dropFirst()).map { $0 - $1 }
        #expect(drops.prefix(3).reduce(0, +) > drops.suffix(3).reduce(0, +), "slowing: \(drops)")
        let after = Signals.dominantFrequency(samples, from: Int((seconds - 1 - 0.04) * 48000), count: 4096)
        #expect(abs(after - 1700) < 30, "\(after) Hz a second before the end")
    }

    /// (e) Cues inside a reversed range keep their text and play in reverse order; a cue after
    /// it is untouched; the output's cues are in time order.
    @Test func cuesInAReversedRangeKeepTheirTextInReverseOrder() throws {
        let folder = try TemporaryFolder("reverse-cues")
        let srt = "1\n00:00:00,500 --> 00:00:01,000\nBefore\n\n2\n00:00:02,200 --> 00:00:02,400\nEarly\n\n"
            + "3\n00:00:03,200 --> 00:00:03,600\nLate\n\n4\n00:00:05,000 --> 00:00:05,500\nAfter\n"
        let movie = try Self.movie(in: folder, cues: srt)
        for flags in [["--fps", "30", "--preset", "ultrafast"], []] {
            let out = folder.file(flags.isEmpty ? "out-copy.mkv" : "out.mkv")
            if flags.isEmpty {
                // Passthrough refuses a reversed timeline until it plays one; the cues are
                // checked on the --fps export only then.
                let document = folder.file("movie.slowpoke").path
                let tried = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none", "-o", out.path])
                if tried.status != 0 { continue }
            } else {
                try Self.export(movie, edits: [["reverse", "--range", "2-4"]], flags: flags, to: out)
            }
            let cues = try EveryStreamTests.cues(out)
            // Source 3.2-3.6 plays at 2.4-2.8, source 2.2-2.4 at 3.6-3.8.
            #expect(cues.map(\.text) == ["Before", "Late", "Early", "After"], "\(cues)")
            #expect(cues.map(\.start) == [500, 2400, 3600, 5000] && cues.map(\.end) == [1000, 2800, 3800, 5500], "\(cues)")
        }
    }

    /// Chapters One (0-2.5), Two (2.5-3.5) and Three (3.5-6) with 2-4 reversed: each is written
    /// once per stretch where it plays, in the order they play, none overlapping, titles kept.
    @Test(arguments: ["mkv", "mp4"])
    func chaptersFollowAReversedRangeInPlayingOrder(container: String) throws {
        let folder = try TemporaryFolder("reverse-chapters")
        let plain = try Self.movie(in: folder)
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2500\nEND=3500\ntitle=Two\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=3500\nEND=6000\ntitle=Three\n".utf8)
            .write(to: folder.file("chapters.txt"))
        let movie = folder.file("chapters.mkv")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", plain.path, "-i", folder.file("chapters.txt").path,
                                                   "-map", "0", "-map_chapters", "1", "-c", "copy", "-y", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        let out = folder.file("out.\(container)")
        try Self.export(movie, edits: [["reverse", "--range", "2-4"]], flags: ["--fps", "30", "--preset", "ultrafast"], to: out)
        let chapters = try #require(try TestSupport.ffprobe(out, ["-show_chapters"])["chapters"] as? [[String: Any]])
        let titles = chapters.map { ($0["tags"] as? [String: String])?["title"] ?? "" }
        let starts = chapters.map { Double($0["start_time"] as? String ?? "") ?? -1 }
        let ends = chapters.map { Double($0["end_time"] as? String ?? "") ?? -1 }
        #expect(titles == ["One", "Three", "Two", "One", "Three"], "\(titles)")
        #expect(starts == [0, 2, 2.5, 3.5, 4] && ends == [2, 2.5, 3.5, 4, 6], "\(starts) \(ends)")
    }

    /// (f) 40 s of 1080p H.264 (GOPs of 250 frames) reversed whole, exported with --fps: peak
    /// memory stays under 900 MB (ffmpeg's reverse filter holds every frame: several GB).
    /// Generating and exporting 1200 1080p frames takes minutes on a small machine, so it runs
    /// with SLOWPOKE_LONG_TESTS=1 (`make test-long`).
    @Test(.enabled(if: TestTier.isLong))
    func fortySecondsOf1080pReversedInBoundedMemory() throws {
        let folder = try TemporaryFolder("reverse-memory")
        let movie = folder.file("long.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=40",
                                                   "-f", "lavfi", "-i", "sine=f=440:r=48000:d=40",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-pix_fmt", "yuv420p",
                                                   "-c:a", "aac", "-y", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("long.slowpoke").path
        try #require(try TestSupport.run(TestSupport.slowpoke, ["reverse", document, "--range", "0-40"]).status == 0)
        let out = folder.file("out.mp4")
        let timed = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/time"),
                                        ["-f", "peak-rss-kb %M", TestSupport.slowpoke.path, "export", document, "--fps", "30",
                                         "--preset", "ultrafast", "--progress", "none", "-o", out.path])
        try #require(timed.status == 0, "\(timed.stderr)")
        let line = try #require(timed.stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb ") })
        let peak = try #require(Int(line.dropFirst("peak-rss-kb ".count)))
        #expect(peak < 900 * 1024, "peak RSS \(peak / 1024) MB")
        let frames = try TestSupport.frameMD5s(out).md5s
        #expect(frames.count == 1200, "\(frames.count) frames")
    }

    // MARK: measurements

    /// Every frame of `file`'s video as 8-bit gray, at 80x60.
    static func grayFrames(_ file: URL) throws -> [[UInt8]] {
        let raw = folderless("gray")
        defer { try? FileManager.default.removeItem(at: raw) }
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                      "-vf", "scale=80:60", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw.path])
        try #require(decoded.status == 0, "\(decoded.stderr)")
        let data = [UInt8](try Data(contentsOf: raw)), size = 80 * 60
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) }
    }

    static func folderless(_ label: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-\(label)-\(UUID().uuidString)")
    }

    /// A `while` loop over raw pointers: in the tests' debug build a range's iterator and a
    /// buffer's checked subscript are calls per pixel.
    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let n = min(a.count, b.count)
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return Double(0) / Double(a.count) }
                var sum = 0, i = 0
                while i < n {
                    let d = Int(pa[i]) &- Int(pb[i])
                    sum &+= d < 0 ? 0 &- d : d
                    i &+= 1
                }
                return Double(sum) / Double(a.count)
            }
        }
    }

    /// Energy above 5 kHz of Hann-windowed 5 ms windows (256 samples at 48 kHz), every 2.5 ms,
    /// with each window's centre time.
    static func highBandEnergies(_ samples: [Float]) -> [(time: Double, energy: Double)] {
        let n = 256, hop = 120, low = 5000 * n / 48000
        var result: [(time: Double, energy: Double)] = []
        var start = 0
        let window = (0..<n).map { i in 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)) }
        while start + n <= samples.count {
            var re = (0..<n).map { i in Double(samples[start + i]) * window[i] }
            var im = [Double](repeating: 0, count: n)
            Signals.fft(&re, &im)
            let energy = (low..<(n / 2)).reduce(0.0) { $0 + re[$1] * re[$1] + im[$1] * im[$1] }
            result.append((Double(start + n / 2) / 48000, energy))
            start += hop
        }
        return result
    }
}
