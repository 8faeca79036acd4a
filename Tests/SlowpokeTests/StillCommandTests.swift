import Foundation
import TestSupport
import Testing

/// `slowpoke still`: the exact frame the timeline shows, checked against FFmpeg's own decode of
/// that source frame converted with the same scaler flags.
@Suite struct StillCommandTests {
    static let flags = "lanczos+accurate_rnd+full_chroma_int"

    /// A 6 s, 30 fps, 320x240 H.264 clip whose every frame differs (testsrc2), with B-frames.
    static func clip(in folder: TemporaryFolder, name: String = "clip.mp4", filter: String? = nil) throws {
        var arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6"]
        if let filter { arguments += ["-vf", filter] }
        arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", "-bf", "2", "-crf", "18", folder.file(name).path]
        let made = try TestSupport.tool("ffmpeg", arguments)
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// Source frame `n` of `movie` as FFmpeg decodes it, in RGB (8 bits) through the still's scaler flags.
    static func ffmpegFrame(_ movie: URL, _ n: Int, in folder: TemporaryFolder) throws -> Data {
        let out = folder.file("ffmpeg-\(n).rgb")
        let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", movie.path, "-vf", "select=eq(n\\,\(n)),scale=flags=\(flags),format=rgb24",
                                                  "-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        return try Data(contentsOf: out)
    }

    /// A picture file's pixels decoded by FFmpeg, as `format`.
    static func pixels(_ picture: URL, format: String = "rgb24", in folder: TemporaryFolder) throws -> Data {
        let out = folder.file(picture.lastPathComponent + ".\(format)")
        let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", picture.path, "-f", "rawvideo", "-pix_fmt", format, out.path])
        #expect(run.status == 0, "\(run.stderr)")
        return try Data(contentsOf: out)
    }

    static func psnr(_ a: Data, _ b: Data) -> Double {
        guard a.count == b.count, !a.isEmpty else { return -1 }
        var sum = 0.0
        for (x, y) in zip(a, b) { let d = Double(x) - Double(y); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test func stillsAreTheSourceFramesScaledReversedAndFrozenSectionsShow() throws {
        let folder = try TemporaryFolder("still")
        try Self.clip(in: folder)
        for edit in [["open", "clip.mp4"], ["scale", "--range", "1-2", "--rate", "0.25"], ["reverse", "--range", "6-7"],
                     ["freeze", "--at", "8", "--duration", "1"]] {
            let r = try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url)
            #expect(r.status == 0, "\(edit): \(r.stderr)")
        }
        // Timeline: 0-1 source 0-1; 1-5 source 1-2 at 0.25x; 5-6 source 2-3; 6-7 source 4 down to 3;
        // 7-8 source 4-5; 8-9 holds source 5 (frame 150); 9-10 source 5-6.
        let cases: [(at: String, frame: Int, section: String)] = [
            ("0.5", 15, "1x"), ("2", 37, "scaled: source 1.25 s"), ("3.3", 47, "scaled: source 1.575 s"),
            ("6.25", 112, "reversed: source 3.75 s, frame 112 plays"), ("6.5", 104, "reversed: source 3.5 s, the frame before 105"),
            ("8.5", 150, "frozen: the held frame"), ("9.5", 165, "after the freeze"), ("end", 179, "the end: the last frame shown"),
        ]
        var checked = 0
        var arguments = ["still"]
        for c in cases { arguments += ["--at", c.at] }
        arguments += ["-o", "still.png"]
        let run = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        for c in cases {
            let still = folder.file("still-\(c.at == "end" ? "10" : c.at)s.png")
            let mine = try Self.pixels(still, in: folder)
            let theirs = try Self.ffmpegFrame(folder.file("clip.mp4"), c.frame, in: folder)
            #expect(mine.count == 320 * 240 * 3, "\(c.section)")
            #expect(mine == theirs, "\(c.section): the still at \(c.at) s is not source frame \(c.frame)")
            // The neighbours differ, so a frame off by one would fail.
            if c.frame < 179 { #expect(mine != (try Self.ffmpegFrame(folder.file("clip.mp4"), c.frame + 1, in: folder)), "\(c.section)") }
            #expect(mine != (try Self.ffmpegFrame(folder.file("clip.mp4"), c.frame - 1, in: folder)), "\(c.section)")
            #expect(run.stdout.contains("source frame \(c.frame) "), "\(run.stdout)")
            checked += 1
        }
        #expect(checked == 8)
    }

    @Test func bestTakesTheSharpestFrameNearby() throws {
        let folder = try TemporaryFolder("still-best")
        // Every frame blurred but frame 45 (1.5 s).
        try Self.clip(in: folder, filter: "boxblur=lr=6:enable='not(eq(n\\,45))'")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let plain = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "1.55", "-o", "plain.png"], in: folder.url)
        #expect(plain.stdout.contains("source frame 46 "), "\(plain.stdout) \(plain.stderr)")
        let best = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "1.55", "--best", "3", "-o", "best.png"], in: folder.url)
        #expect(best.status == 0, "\(best.stderr)")
        #expect(best.stdout.contains("source frame 45 ") && best.stdout.contains("the sharpest of 7 frames"), "\(best.stdout)")
        #expect(try Self.pixels(folder.file("best.png"), in: folder) == Self.ffmpegFrame(folder.file("clip.mp4"), 45, in: folder))
    }

    @Test func mergingFiveNoisyFramesGainsAtLeastThreeDecibels() throws {
        let folder = try TemporaryFolder("still-merge")
        // A clean clip that pans (2 px right and 1 down a frame) over moving content, lossless.
        let clean = folder.file("clean.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x480:r=30:d=2",
                                                   "-vf", "crop=320:240:20+n*2:20+n", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", clean.path])
        #expect(made.status == 0, "\(made.stderr)")
        // The same frames with Gaussian noise of sigma 10 added to every sample, lossless too.
        let raw = folder.file("clean.yuv")
        #expect(try TestSupport.tool("ffmpeg", ["-v", "error", "-i", clean.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", raw.path]).status == 0)
        var samples = [UInt8](try Data(contentsOf: raw))
        var random = SplitMix64(state: 56)
        for k in samples.indices {
            let u1 = max(random.unit(), 1e-12), u2 = random.unit()
            let noise = 10 * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            samples[k] = UInt8(max(0, min(255, (Double(samples[k]) + noise).rounded())))
        }
        try Data(samples).write(to: folder.file("noisy.yuv"))
        let noisy = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x240", "-r", "30",
                                                    "-i", folder.file("noisy.yuv").path, "-c:v", "libx264", "-qp", "0", folder.file("noisy.mp4").path])
        #expect(noisy.status == 0, "\(noisy.stderr)")
        for movie in ["clean.mp4", "noisy.mp4"] {
            #expect(try TestSupport.run(TestSupport.slowpoke, ["open", movie], in: folder.url).status == 0)
        }
        var gains: [Double] = []
        for at in ["0.5", "1.2"] {
            for (document, flags, name) in [("clean.slowpoke", [String](), "clean"), ("noisy.slowpoke", [], "single"), ("noisy.slowpoke", ["--merge", "5"], "merged")] {
                let r = try TestSupport.run(TestSupport.slowpoke, ["still", document, "--at", at, "-o", "\(name)-\(at).png"] + flags, in: folder.url)
                #expect(r.status == 0, "\(r.stderr)")
            }
            let reference = try Self.pixels(folder.file("clean-\(at).png"), in: folder)
            let single = Self.psnr(try Self.pixels(folder.file("single-\(at).png"), in: folder), reference)
            let merged = Self.psnr(try Self.pixels(folder.file("merged-\(at).png"), in: folder), reference)
            #expect(single > 20 && single < 35, "single frame \(single) dB")
            #expect(merged - single >= 3, "at \(at): merged \(merged) dB, single \(single) dB")
            gains.append(merged - single)
        }
        #expect(gains.count == 2, "\(gains)")
    }

    @Test func stillsAreUprightAndAtTheirDisplayShape() throws {
        let folder = try TemporaryFolder("still-shape")
        // 320x240 with pixels twice as wide as tall (SAR 2:1), stored turned: players show 240x640.
        try Self.clip(in: folder, name: "flat.mp4", filter: "setsar=2/1")
        let turned = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("flat.mp4").path, "-c", "copy",
                                                     "-metadata:s:v:0", "rotate=90", folder.file("turned.mp4").path])
        #expect(turned.status == 0, "\(turned.stderr)")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "turned.mp4"], in: folder.url).status == 0)
        let run = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "1", "-o", "turned.png"], in: folder.url)
        #expect(run.stdout.contains("240x640"), "\(run.stdout) \(run.stderr)")
        let mine = try Self.pixels(folder.file("turned.png"), in: folder)
        // FFmpeg's own rotation of frame 30 (autorotate), then scaled to the display shape.
        let out = folder.file("ffmpeg-turned.rgb")
        let ffmpeg = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("turned.mp4").path, "-vf",
                                                     "select=eq(n\\,30),scale=240:640:flags=\(Self.flags),setsar=1,format=rgb24",
                                                     "-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo", out.path])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let theirs = try Data(contentsOf: out)
        #expect(mine.count == 240 * 640 * 3 && theirs.count == mine.count)
        #expect(Self.psnr(mine, theirs) > 30, "\(Self.psnr(mine, theirs)) dB against FFmpeg's upright frame")
        // Turned the other way round, or not at all, it would not match.
        let flipped = Data(mine.reversed())
        #expect(Self.psnr(flipped, theirs) < 20)
    }

    @Test func batchRecipesTakeStills() throws {
        let folder = try TemporaryFolder("still-batch")
        try Self.clip(in: folder)
        let recipe = #"{"output_dir": "out", "edits": [{"scale": {"range": "1-2", "rate": "0.25"}}], "movies": ["clip.mp4"], "export": {"stills": {"at": ["2", "50%"], "format": "jpg"}}}"#
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let batch = try TestSupport.run(TestSupport.slowpoke, ["batch", "recipe.json", "--progress", "none"], in: folder.url)
        #expect(batch.status == 0, "\(batch.stdout) \(batch.stderr)")
        #expect(batch.stdout.contains("stills clip-2s.jpg, clip-4.5s.jpg"), "\(batch.stdout)")
        // The same stills as the command makes on the same timeline.
        for edit in [["open", "clip.mp4"], ["scale", "--range", "1-2", "--rate", "0.25"], ["still", "--at", "2", "--at", "4.5", "-o", "cli.jpg"]] {
            let r = try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url)
            #expect(r.status == 0, "\(edit): \(r.stderr)")
        }
        var compared = 0
        for (batchName, cliName) in [("out/clip-2s.jpg", "cli-2s.jpg"), ("out/clip-4.5s.jpg", "cli-4.5s.jpg")] {
            let a = try Self.pixels(folder.file(batchName), in: folder), b = try Self.pixels(folder.file(cliName), in: folder)
            #expect(!a.isEmpty && a == b, "\(batchName)")
            compared += 1
        }
        #expect(compared == 2)
        // A rerun with nothing changed skips the job.
        let again = try TestSupport.run(TestSupport.slowpoke, ["batch", "recipe.json", "--progress", "none"], in: folder.url)
        #expect(again.stdout.contains("skipped"), "\(again.stdout)")
    }
}
