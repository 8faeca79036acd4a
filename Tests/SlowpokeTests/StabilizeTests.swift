import Foundation
import TestSupport
import Testing

/// `export --fps --stabilize`: a still picture moved by a seeded random walk plus jitter comes
/// out steady. The motion is measured independently of vidstab, by block matching (``GlobalShift``,
/// checked against the offsets the clip was made with), on the input, on our export and on
/// FFmpeg's own two-pass vidstab command at the same settings.
@Suite(.serialized) struct StabilizeTests {
    static let (width, height, bigWidth, bigHeight, frames) = (640, 480, 960, 720, 90)

    /// The shaky clip: a textured still (testsrc2 with blurred noise, grey) cropped at offsets
    /// that walk randomly and jitter; returns the offsets. Made once per test process for each
    /// seed (``GeneratedMedia``: StabilizeTests, BatchStabilizeTests and ReproducibleReframingTests
    /// start from the same clip), copied into `folder` as `name`.
    @discardableResult
    static func shakyClip(in folder: TemporaryFolder, name: String = "clip.mp4", seed: UInt64 = 56) throws -> [(x: Int, y: Int)] {
        let offsets = walk(seed: seed)
        let made = try GeneratedMedia.shared(["StabilizeTests.shakyClip", "\(seed)"], extension: "mp4") { clip in
            let scratch = try TemporaryFolder("shaky")
            let still = scratch.file("still-\(seed).gray")
            let textured = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(bigWidth)x\(bigHeight):d=1",
                                                           "-vf", "noise=alls=60:allf=u,gblur=sigma=1.2", "-frames:v", "1",
                                                           "-f", "rawvideo", "-pix_fmt", "gray", still.path])
            #expect(textured.status == 0, "\(textured.stderr)")
            let big = [UInt8](try Data(contentsOf: still))
            var raw = [UInt8]()
            raw.reserveCapacity(width * height * frames)
            for (x, y) in offsets {
                for row in 0..<height { raw.append(contentsOf: big[(y + row) * bigWidth + x..<(y + row) * bigWidth + x + width]) }
            }
            let frameFile = scratch.file("frames-\(seed).gray")
            try Data(raw).write(to: frameFile)
            let encoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "\(width)x\(height)", "-r", "30",
                                                          "-i", frameFile.path, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "16", clip.path])
            #expect(encoded.status == 0, "\(encoded.stderr)")
        }
        // In place of a clip already there (a test changes its movie so), as ffmpeg's -y wrote it.
        try? FileManager.default.removeItem(at: folder.file(name))
        try FileManager.default.copyItem(at: made, to: folder.file(name))
        return offsets
    }

    /// The crop offsets of the shaky clip's `frames` pictures: a random walk plus jitter.
    static func walk(seed: UInt64) -> [(x: Int, y: Int)] {
        var random = SplitMix64(state: seed)
        var walk = (x: Double(bigWidth - width) / 2, y: Double(bigHeight - height) / 2)
        var offsets: [(x: Int, y: Int)] = []
        for _ in 0..<frames {
            walk.x = min(max(walk.x + (random.unit() - 0.5) * 4, 100), 220)
            walk.y = min(max(walk.y + (random.unit() - 0.5) * 4, 80), 160)
            let x = Int((walk.x + (random.unit() - 0.5) * 14).rounded()), y = Int((walk.y + (random.unit() - 0.5) * 14).rounded())
            offsets.append((x, y))
        }
        return offsets
    }

    /// `movie`'s pictures, decoded by FFmpeg as grey at the clip's size, in one file.
    static func greyFile(_ movie: URL, in folder: TemporaryFolder) throws -> URL {
        let out = folder.file("\(movie.lastPathComponent).gray")
        let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", movie.path, "-vf", "scale=\(width):\(height)", "-f", "rawvideo", "-pix_fmt", "gray", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        return out
    }

    /// Every frame of `movie`, decoded by FFmpeg as grey at the clip's size.
    static func greyFrames(_ movie: URL, in folder: TemporaryFolder) throws -> [[UInt8]] {
        let data = [UInt8](try Data(contentsOf: try greyFile(movie, in: folder)))
        let size = width * height
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) }
    }

    /// The frame-to-frame global shifts of `movie`'s pictures (see ``GlobalShift``).
    static func motion(of movie: URL, in folder: TemporaryFolder) throws -> [(x: Double, y: Double)] {
        try GlobalShift.between(picturesIn: try greyFile(movie, in: folder), width: width, height: height)
    }

    /// sqrt(var(dx) + var(dy)).
    static func deviation(_ motion: [(x: Double, y: Double)]) -> Double {
        func variance(_ v: [Double]) -> Double {
            let mean = v.reduce(0, +) / Double(v.count)
            return v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(v.count)
        }
        return (variance(motion.map(\.x)) + variance(motion.map(\.y))).squareRoot()
    }

    static func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    @Test func shakyClipComesOutSteadyAsFFmpegsOwn() throws {
        let folder = try TemporaryFolder("stabilize")
        let offsets = try Self.shakyClip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        var run: TestSupport.Result?
        let ours = try Self.timed {
            run = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--stabilize", "-o", "out.mp4", "--progress", "none"], in: folder.url)
        }
        #expect(run?.status == 0, "\(run?.stderr ?? "")")
        #expect(run?.stdout.contains("stabilized (strength 10, zoomed to hide the edges; analysis made") == true, "\(run?.stdout ?? "")")
        // FFmpeg's two passes, the same detection and smoothing, the same encoder settings.
        let theirs = try Self.timed {
            let detect = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", "clip.mp4", "-vf", "vidstabdetect=shakiness=5:accuracy=15:result=ref.trf",
                                                         "-f", "null", "-"], in: folder.url)
            #expect(detect.status == 0, "\(detect.stderr)")
            let transform = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", "clip.mp4", "-vf",
                                                            "vidstabtransform=input=ref.trf:smoothing=10:optzoom=1:crop=black:interpol=bicubic",
                                                            "-c:v", "libx264", "-crf", "20", "-preset", "medium", "-pix_fmt", "yuv420p", "ref.mp4"], in: folder.url)
            #expect(transform.status == 0, "\(transform.stderr)")
        }
        let input = try Self.motion(of: folder.file("clip.mp4"), in: folder)
        // The measure itself: the input's shifts are the offsets the clip was made with.
        var matched = 0
        for (k, m) in input.enumerated() where abs(m.x - Double(offsets[k + 1].x - offsets[k].x)) <= 0.5
            && abs(m.y - Double(offsets[k + 1].y - offsets[k].y)) <= 0.5 { matched += 1 }
        #expect(input.count == Self.frames - 1)
        #expect(matched >= input.count * 9 / 10, "\(matched) of \(input.count) shifts measured right")
        let output = try Self.motion(of: folder.file("out.mp4"), in: folder)
        let reference = try Self.motion(of: folder.file("ref.mp4"), in: folder)
        #expect(output.count == Self.frames - 1 && reference.count == Self.frames - 1)
        let (sIn, sOut, sRef) = (Self.deviation(input), Self.deviation(output), Self.deviation(reference))
        print(String(format: "stabilize: motion deviation input %.3f px, ours %.3f px (%.1f%%), ffmpeg two-pass %.3f px; time ours %.2f s, ffmpeg %.2f s (%.2fx)",
                     sIn, sOut, 100 * sOut / sIn, sRef, ours, theirs, ours / theirs))
        #expect(sIn > 3)
        #expect(sOut <= 0.25 * sIn)
        #expect(sOut <= sRef * 1.05 + 0.02, "ours \(sOut) px against FFmpeg's \(sRef) px")
    }

    @Test func analysisIsKeptAndRedoneForAChangedMovie() throws {
        let folder = try TemporaryFolder("stabilize-cache")
        try Self.shakyClip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let cache = folder.file("clip.slowpoke-stab")
        func export(_ name: String, strength: String = "") throws -> String {
            let run = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--stabilize\(strength)", "-o", name, "--progress", "none"], in: folder.url)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout
        }
        func analyses() throws -> [String: Date] {
            try FileManager.default.contentsOfDirectory(atPath: cache.path).reduce(into: [:]) { files, name in
                files[name] = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(name).path)[.modificationDate] as? Date
            }
        }
        #expect(try export("a.mp4").contains("analysis made and kept in clip.slowpoke-stab"))
        let first = try analyses()
        #expect(first.count == 1 && first.keys.allSatisfy { $0.hasSuffix(".trf") }, "\(first)")
        // A rewrite shows in the dates at once where the file system keeps fractions of a
        // second (ext4, tmpfs); where it keeps whole seconds, let one pass first.
        if first.values.allSatisfy({ $0.timeIntervalSince1970.rounded() == $0.timeIntervalSince1970 }) { Thread.sleep(forTimeInterval: 1.1) }
        // Another strength smooths the same analysis: no second detection.
        #expect(try export("b.mp4", strength: "=30").contains("stabilized (strength 30, zoomed to hide the edges; analysis reused)"))
        #expect(try analyses() == first)
        // A slowed second plays the steadied pictures, each as often as the retime shows it,
        // with the same analysis: frame k shows steadied source frame 30 + (k - 30) / 2.
        #expect(try TestSupport.run(TestSupport.slowpoke, ["scale", "--range", "1-2", "--rate", "0.5"], in: folder.url).status == 0)
        #expect(try export("slow.mp4").contains("analysis reused"))
        #expect(try analyses() == first)
        let (plain, slow) = (try Self.greyFrames(folder.file("a.mp4"), in: folder), try Self.greyFrames(folder.file("slow.mp4"), in: folder))
        #expect(plain.count == Self.frames && slow.count == Self.frames + 30)
        var checked = 0
        for k in [0, 15, 31, 44, 58, 89, 100, 119] where k < slow.count {
            let i = k < 30 ? k : k < 90 ? 30 + (k - 30) / 2 : k - 30
            let quality = StillCommandTests.psnr(Data(slow[k]), Data(plain[i]))
            let wrong = i < 45 ? i + 5 : i - 5
            let off = StillCommandTests.psnr(Data(slow[k]), Data(plain[wrong]))
            #expect(quality > 35 && quality > off + 1, "frame \(k) against steadied source frame \(i): \(quality) dB, frame \(wrong): \(off) dB")
            checked += 1
        }
        #expect(checked == 8)
        #expect(Self.deviation(try Self.motion(of: folder.file("slow.mp4"), in: folder)) <= 0.25 * Self.deviation(try Self.motion(of: folder.file("clip.mp4"), in: folder)))
        // A changed movie is analysed again, into a file of its own.
        try FileManager.default.removeItem(at: folder.file("clip.slowpoke"))
        try Self.shakyClip(in: folder, seed: 57)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        #expect(try export("c.mp4").contains("analysis made"))
        let second = try analyses()
        #expect(second.count == 2 && first.allSatisfy { second[$0.key] == $0.value }, "\(second)")
    }

    @Test func refusedStabilizationsSayWhy() throws {
        let folder = try TemporaryFolder("stabilize-refused")
        try StillCommandTests.clip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let cases: [([String], Int32, String)] = [
            (["--stabilize"], 64, "--stabilize re-encodes the picture; add --fps N"),
            (["--fps", "30", "--stabilize-borders", "keep"], 64, "--stabilize-borders says how --stabilize fills the edges; add --stabilize"),
            (["--fps", "30", "--stabilize=0"], 1, "--stabilize: a stabilization strength is a whole number of frames from 1 to 100, not 0"),
        ]
        var checked = 0
        for (flags, status, message) in cases {
            let run = try TestSupport.run(TestSupport.slowpoke, ["export", "-o", "x.mp4", "--progress", "none"] + flags, in: folder.url)
            #expect(run.status == status, "\(flags): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(flags): \(run.stderr)")
            checked += 1
        }
        #expect(checked == 3)
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.mp4").path))
    }
}
