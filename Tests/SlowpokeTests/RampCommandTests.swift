import Foundation
import TestSupport
import Testing

/// `slowpoke ramp` end to end (issue 24, part 1): one edit, one undo, and exports that an
/// independent oracle (ffprobe, ffmpeg's decoder, an FFT) finds smooth.
@Suite struct RampCommandTests {
    @Test func oneRampIsOneEditAndOneUndo() throws {
        let folder = try folderWithDocument()
        let before = try json(try slowpoke("info", "--json", in: folder).stdout)
        let ramped = try slowpoke("ramp", "--range", "2-4", "--from", "1", "--to", "0.25", in: folder)
        #expect(ramped.status == 0, "\(ramped.stderr)")
        #expect(ramped.stdout == "ramp 2-4 to 3.697 s (1x to 0.25x, linear, 30 steps); the timeline is now 11.697 s\n")
        let history = try slowpoke("history", in: folder).stdout
        #expect(history.split(separator: "\n").count == 1 && history.contains("ramp 2-4 to 3.697 s (1x to 0.25x, linear, 30 steps)"))

        // info: the ramp is one row; --json lists its 30 steps as segments.
        let info = try slowpoke("info", in: folder).stdout
        #expect(info.contains("  2-31   2 - 5.697        2 - 4    ramp 1x→0.25x, 30 steps\n"), "\(info)")
        // Under the table, the speed over the timeline: 1x, down to the slowest step, 1x.
        #expect(info.contains("""
            Speed over the timeline (0 - 11.697 s, log scale):
                  1x ███████████▆▅▄▃▁             ███████████████████████████████
                     █████████████████▆▅▄▂▁       ███████████████████████████████
              0.262x ███████████████████████▇▆▅▃▂▁███████████████████████████████

            """), "\(info)")
        let after = try json(try slowpoke("info", "--json", in: folder).stdout)
        let segments = ((after["tracks"] as? [[String: Any]])?.first?["segments"] as? [Any]) ?? []
        #expect(segments.count == 32)
        #expect(after["duration"] as? String == "8983/768")

        // The document holds a ramp: it says version 4 (2 before its checksum), and reads back.
        let document = try json(String(decoding: try Data(contentsOf: folder.file("clip.slowpoke")), as: UTF8.self))
        #expect(document["version"] as? Int == 4)

        let undone = try slowpoke("undo", in: folder)
        #expect(undone.status == 0 && undone.stdout == "undid: ramp 2-4 to 3.697 s (1x to 0.25x, linear, 30 steps); the timeline is now 10 s\n")
        let restored = try json(try slowpoke("info", "--json", in: folder).stdout)
        func canonical(_ value: Any?) throws -> Data { try JSONSerialization.data(withJSONObject: value ?? [], options: .sortedKeys) }
        #expect(try canonical(restored["tracks"]) == canonical(before["tracks"]), "the timeline is the one before the ramp")
        #expect(restored["duration"] as? String == "10")
    }

    @Test(arguments: [
        (["--range", "2-4", "--from", "0.01", "--to", "1"], "slowpoke: error: --from 0.01 is outside the supported 0.03125 to 32\n"),
        (["--range", "2-4", "--from", "1", "--to", "0"], "slowpoke: error: --to 0 is outside the supported 0.03125 to 32\n"),
        (["--range", "4-2", "--from", "1", "--to", "0.5"], "slowpoke: error: range 4-2 ends before it starts\n"),
        (["--range", "2-2", "--from", "1", "--to", "0.5"], "slowpoke: error: range 2-2 is empty; it starts and ends at 2 s\n"),
        (["--range", "8-12", "--from", "1", "--to", "0.5"], "slowpoke: error: range 8-12 goes beyond the end of the timeline at 10 s\n"),
    ])
    func badInputIsRefusedAndLeavesTheDocumentUnchanged(arguments: [String], message: String) throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try TestSupport.run(TestSupport.slowpoke, ["ramp"] + arguments, in: folder.url)
        #expect(result.status != 0)
        #expect(result.stderr.hasSuffix(message), "\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }

    /// Passthrough through a ramp down: every one of the 600 frames is kept, unchanged, and
    /// the spacing between frames never shrinks from the ramp's start to its end.
    @Test func passthroughSpacesFramesFurtherAndFurtherApart() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("ramp", "--range", "2-4", "--from", "1", "--to", "0.25", in: folder).status == 0)
        let exported = try slowpoke("export", "--progress", "none", "-o", "out.mp4", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let out = folder.file("out.mp4")

        let probe = try TestSupport.ffprobe(out, ["-select_streams", "v:0", "-show_entries", "packet=pts:stream=time_base", "-show_packets", "-show_streams"])
        let timeBase = ((probe["streams"] as? [[String: Any]])?.first?["time_base"] as? String) ?? ""
        let parts = timeBase.split(separator: "/").compactMap { Double($0) }
        try #require(parts.count == 2)
        let pts = ((probe["packets"] as? [[String: Any]]) ?? []).compactMap { $0["pts"] as? Int }.sorted()
        #expect(pts.count == 600)
        let seconds = pts.map { Double($0 - pts[0]) * parts[0] / parts[1] }
        // Frames that start in the ramp (2 s to 2 + 3.697 s on the timeline), with the frame before.
        let first = try #require(seconds.firstIndex { $0 >= 2 - 1e-9 })
        let last = try #require(seconds.lastIndex { $0 < 2 + 2839.0 / 768 - 1e-6 })
        let spacing = (first..<last).map { pts[$0 + 1] - pts[$0] }
        #expect(spacing.count == 119)
        #expect(zip(spacing, spacing.dropFirst()).allSatisfy { $0 <= $1 }, "spacing in ticks: \(spacing)")
        // From about 1/60 s to about 4/60 s.
        let ticks = parts[1] / parts[0]
        #expect(abs(Double(spacing.first!) / ticks - 1.0 / 60 / (1024.0 / 1037)) < 1e-4)
        #expect(abs(Double(spacing.last!) / ticks - 1.0 / 60 / (1024.0 / 4012)) < 2e-3, "\(Double(spacing.last!) / ticks)")

        let frames = try TestSupport.frameMD5s(out)
        #expect(frames.errors.isEmpty)
        #expect(frames.md5s == (try TestSupport.frameMD5s(folder.file("clip.mp4"))).md5s, "every frame kept, bit for bit")
    }

    /// A steady 440 Hz tone through a ramp down (spectral or timeDomain, to WAV so no lossy codec
    /// adds its own noise): no click at any step join, and the pitch holds.
    @Test(arguments: ["spectral", "timeDomain"])
    func aToneThroughARampHasNoClickAndHoldsItsPitch(algorithm: String) throws {
        let folder = try TemporaryFolder("ramp-tone")
        try TestSupport.makeAudio("sine=frequency=440", seconds: 10, to: folder.file("tone.wav"))
        #expect(try slowpoke("open", "tone.wav", in: folder).status == 0)
        let down = try slowpoke("ramp", "tone.slowpoke", "--range", "2-4", "--from", "1", "--to", "0.25", in: folder)
        #expect(down.status == 0, "\(down.stderr)")
        let exported = try slowpoke("export", "tone.slowpoke", "--algorithm", algorithm, "--progress", "none", "-o", "out.wav", in: folder)
        try #require(exported.status == 0, "\(exported.stderr)")
        let samples = try TestSupport.decodeAudio(folder.file("out.wav"))
        let rampStart = 2 * 48000, rampEnd = Int((2 + 2839.0 / 768) * 48000)
        #expect(abs(samples.count - Int((8 + 2839.0 / 768) * 48000)) < 48)

        // High-frequency (> 6 kHz) energy in 5 ms windows across the whole ramp, plus 0.5 s
        // either side, against its median.
        let window = 240, fftSize = 256
        var energies: [Double] = []
        var start = rampStart - 24000
        while start + window <= rampEnd + 24000 {
            var re = [Double](repeating: 0, count: fftSize)
            for i in 0..<window {
                let hann: Double = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(window))
                re[i] = Double(samples[start + i]) * hann
            }
            var im = [Double](repeating: 0, count: fftSize)
            Signals.fft(&re, &im)
            let lowest = Int(6000.0 / 48000 * Double(fftSize)) + 1
            var energy = 0.0
            for k in lowest..<(fftSize / 2) { energy += re[k] * re[k] + im[k] * im[k] }
            energies.append(energy)
            start += window
        }
        let median = energies.sorted()[energies.count / 2]
        let worst = energies.max() ?? 0
        #expect(worst <= 4 * median, "\(algorithm): loudest 5 ms above 6 kHz is \(worst / median)x the median")
        print("ramp tone \(algorithm): \(energies.count) windows, worst high-frequency energy \(worst / median)x the median")

        // The pitch: 440 Hz over the whole ramp (one 2.7 s FFT), and within 1.5% in every
        // 170 ms window through it.
        let whole = Signals.dominantFrequency(samples, from: rampStart, count: 131072)
        #expect(abs(whole - 440) / 440 < 0.005, "\(algorithm) over the ramp: \(whole) Hz")
        for t in stride(from: 2.1, to: 5.5, by: 0.4) {
            let f = Signals.dominantFrequency(samples, from: Int(t * 48000), count: 8192)
            #expect(abs(f - 440) / 440 < 0.015, "\(algorithm) at \(t) s: \(f) Hz")
        }
        // An even level through the steps: the ramp is one Rubber Band run whose key-frame map
        // places every step, so no join inside it dips (20 ms windows; measured 0.07 dB with
        // spectral, 0.12 dB with timeDomain, where separate runs crossfaded dipped 1.3 and 10 dB).
        let level = Signals.rms(samples[48000..<96000])
        var worstDip: Float = 0
        var windows = 0
        for s in stride(from: rampStart, to: rampEnd - 960, by: 960) {
            worstDip = max(worstDip, -20 * log10(Signals.rms(samples[s..<(s + 960)]) / level))
            windows += 1
        }
        #expect(windows > 180)
        #expect(worstDip < 1, "\(algorithm): the level dips \(worstDip) dB in the ramp")
        // Where the ramp (at 0.25x) meets the 1x rest, a crossfade of two tones whose phases
        // differ remains, as at any boundary between a slowed and an unslowed segment.
        var joinDip: Float = 0
        for s in stride(from: rampEnd - 960, to: rampEnd + 960, by: 240) {
            joinDip = max(joinDip, -20 * log10(Signals.rms(samples[s..<(s + 960)]) / level))
        }
        print("ramp tone \(algorithm): worst level dip \(worstDip) dB over the ramp, \(joinDip) dB where it meets 1x")
        print("ramp tone \(algorithm): over the ramp \(whole) Hz")
    }

    /// A smooth ramp then a cut through it: the cut's exact times outgrow exact arithmetic
    /// once it moves to a keyframe (`--keyframe-cuts`). Passthrough rounds the timeline to the
    /// source's ticks and says so, as `--fps` and `otio export` already managed; it once refused
    /// the document. A frame-exact cut (the default) stays where it is, and exact.
    @Test func aRampCutThroughStillExportsPassthrough() throws {
        let folder = try TemporaryFolder("ramp-cut")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=10",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "30", "-pix_fmt", "yuv420p", folder.file("c.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "c.mp4", in: folder).status == 0)
        #expect(try slowpoke("ramp", "--range", "1.075-2.361", "--from", "0.5", "--to", "3", "--ease", "smooth", "--steps", "20", in: folder).status == 0)
        #expect(try slowpoke("remove", "--range", "1.904-2.766", in: folder).status == 0)
        let export = try slowpoke("export", "-o", "p.mp4", "--keyframe-cuts", "--progress", "none", in: folder)
        #expect(export.status == 0 && export.stdout.contains("timestamps rounded to 15360 ticks a second"), "\(export.stdout)\(export.stderr)")
        let exact = try slowpoke("export", "-o", "e.mp4", "--progress", "none", in: folder)
        #expect(exact.status == 0 && exact.stdout.contains("every frame at its exact time"), "\(exact.stdout)\(exact.stderr)")
        let dts = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts", "-of", "csv=p=0",
                                                   folder.file("p.mp4").path]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(dts.count > 200 && zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }, "\(dts.count) packets")
    }
}
