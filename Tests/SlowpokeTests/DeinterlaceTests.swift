import Foundation
import TestSupport
import Testing

/// `--fps` from interlaced video (issue 20, item 9). The footage is a 50p moving pattern,
/// interlaced by ffmpeg into 25i: each field of the 25i stream is one picture of the 50p
/// pattern. The export must show those pictures one by one, deinterlaced: every output picture
/// scores above 30 dB against the 50p picture it stands for (better than against the pictures
/// either side), no picture repeats, and lines do not comb. Everything is measured with ffmpeg
/// and ffprobe only. The exports take x264's ultrafast preset: the scores are the
/// deinterlacer's, not the encoder's (35.3 dB on average against the 50p pattern at `--crf 12`
/// with the default preset, 35.4 with ultrafast), and the default took twice the CPU.
@Suite struct DeinterlaceTests {
    static let (width, height) = (720, 576)

    /// The 50p pattern (lossless) and the same pattern as 25i MPEG-2 in a transport stream,
    /// `order` `tff` or `bff`: made once per test process for each order and length
    /// (``GeneratedMedia``), copied into `folder`. Every test takes 2 s (100 fields: the
    /// checks are per picture, and 4 s and 3 s clips only doubled the pictures, the encodes
    /// of the 720x576 exports and the clips made, for the same checks).
    static func footage(in folder: TemporaryFolder, order: String = "tff", seconds: Int = 2) throws -> (reference: URL, interlaced: URL) {
        let pattern = ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=50", "-t", "\(seconds)", "-c:v", "ffv1"]
        let reference = try GeneratedMedia.copy(pattern, as: "reference.mkv", in: folder)
        let top = order == "tff"
        let interlaced = try GeneratedMedia.copy(["-i", try GeneratedMedia.made(pattern, extension: "mkv").path,
                                                  "-vf", "tinterlace=mode=\(top ? "interleave_top" : "interleave_bottom"),setfield=\(order)",
                                                  "-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", top ? "1" : "0", "-b:v", "8M",
                                                  "-f", "mpegts"], as: "interlaced-\(order).ts", in: folder)
        return (reference, interlaced)
    }

    /// Opens `movie`, applies `edits` (slowpoke arguments after the document) and exports it
    /// with `arguments`; the export's stdout.
    static func export(_ movie: URL, to output: URL, edits: [[String]] = [], _ arguments: [String]) throws -> String {
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = movie.deletingPathExtension().appendingPathExtension("slowpoke").path
        for edit in edits {
            let run = try TestSupport.run(TestSupport.slowpoke, [edit[0], document] + edit.dropFirst())
            try #require(run.status == 0, "\(run.stderr)")
        }
        let run = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", output.path] + arguments)
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    static func luma(_ file: URL) throws -> [[UInt8]] {
        try ConstantRateIntegrityTests.lumaFrames(file, width: width, height: height)
    }

    /// The loops below index raw pointers in `while` loops: in a debug build (the tests') a
    /// range's iterator and a buffer's checked subscript are calls, which made these 3.5 times
    /// slower (the suite compares some 1,000 pictures of 414,720 pixels).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let n = min(a.count, b.count)
        let sum = a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                guard n > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return 0 }
                var sum = 0, i = 0
                while i < n {
                    let d = Int(pa[i]) &- Int(pb[i])
                    sum &+= d &* d
                    i &+= 1
                }
                return sum
            }
        }
        return sum == 0 ? 99 : 10 * log10(255 * 255 * Double(a.count) / Double(sum))
    }

    /// Combing: the mean difference between neighbouring lines over that between lines two
    /// apart. Woven fields of a moving picture make neighbouring lines differ more than lines of
    /// the same field (above 1); a progressive picture's neighbouring lines are the closer ones.
    static func combing(_ frame: [UInt8]) -> Double {
        guard frame.count >= width * height else { return .nan }
        return frame.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            var adjacent = 0, twoApart = 0, i = 0
            let (line, end) = (width, (height - 2) * width)
            while i < end {
                let v = Int(p[i]), a = v &- Int(p[i &+ line]), b = v &- Int(p[i &+ 2 &* line])
                adjacent &+= a < 0 ? 0 &- a : a
                twoApart &+= b < 0 ? 0 &- b : b
                i &+= 1
            }
            return Double(adjacent) / Double(max(twoApart, 1))
        }
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }

    /// Output picture k against the 50p picture `expected(k)`: above 30 dB, and closer to it than
    /// to the pictures either side.
    static func checkPictures(_ output: [[UInt8]], reference: [[UInt8]], expected: (Int) -> Int) -> (worst: Double, margin: Double) {
        var worst = 99.0, margin = 99.0
        for (k, picture) in output.enumerated() {
            let p = expected(k)
            let score = psnr(picture, reference[p])
            let neighbours = [p - 1, p + 1].filter { reference.indices.contains($0) }.map { psnr(picture, reference[$0]) }
            worst = min(worst, score)
            margin = min(margin, score - (neighbours.max() ?? 0))
            if score < 30 || neighbours.contains(where: { $0 >= score }) {
                Issue.record("output picture \(k) scores \(score) dB against 50p picture \(p), \(neighbours) against its neighbours")
            }
        }
        return (worst, margin)
    }

    @Test(arguments: [("tff", "top field first"), ("bff", "bottom field first")])
    func everyFieldBecomesAPictureOfItsOwn(order: String, words: String) throws {
        let folder = try TemporaryFolder("deinterlace")
        let (reference, interlaced) = try Self.footage(in: folder, order: order)
        let output = folder.file("out.mp4")
        let stdout = try Self.export(interlaced, to: output, ["--fps", "50", "--crf", "12", "--preset", "ultrafast"])
        #expect(stdout.contains("deinterlaced (bwdif, \(words); 50 of 50 frames combed, the rest kept whole)"), "\(stdout)")
        let stream = try videoStream(output, "field_order,nb_frames")
        #expect(stream["field_order"] as? String == "progressive", "\(stream)")
        // 50 distinct pictures a second: no output picture repeats the one before.
        let md5s = try TestSupport.frameMD5s(output).md5s
        #expect(md5s.count == 100)
        #expect(zip(md5s, md5s.dropFirst()).allSatisfy { $0 != $1 })
        let pictures = try Self.luma(output), patterns = try Self.luma(reference)
        try #require(pictures.count == 100 && patterns.count == 100)
        let (worst, margin) = Self.checkPictures(pictures, reference: patterns, expected: { $0 })
        #expect(worst > 31 && margin > 4, "worst \(worst) dB, \(margin) dB above a neighbour")
        // Combing, every fifth picture: measured 0.61 after deinterlacing, 0.72 for the 50p
        // pattern itself, 1.35 for the woven 25i frames (what the export showed before).
        let woven = try Self.luma(interlaced)
        let after = Self.mean(stride(from: 0, to: 100, by: 5).map { Self.combing(pictures[$0]) })
        let before = Self.mean(stride(from: 0, to: woven.count, by: 5).map { Self.combing(woven[$0]) })
        #expect(after < 0.8 && before > 1.2, "combing \(after) after, \(before) woven")
    }

    /// At 0.25x, a second of 25i plays for four: each of its 50 fields is shown in turn, held
    /// for four output pictures at 50 fps (0.4 s at 1x before it, 0.6 s after it).
    @Test func quarterSpeedShowsEachFieldInTurn() throws {
        let folder = try TemporaryFolder("deinterlace-slow")
        let (reference, interlaced) = try Self.footage(in: folder)
        let output = folder.file("slow.mp4")
        let stdout = try Self.export(interlaced, to: output, edits: [["scale", "--range", "0.4-1.4", "--rate", "0.25"]],
                                     ["--fps", "50", "--crf", "12", "--preset", "ultrafast"])
        #expect(stdout.contains("250 frames at 50 fps") && stdout.contains("deinterlaced"), "\(stdout)")
        let pictures = try Self.luma(output), patterns = try Self.luma(reference)
        try #require(pictures.count == 250 && patterns.count == 100)
        // Output k at k/50 s: source k/50 before the slowed second, 0.4 + (k/50 - 0.4)/4 in it,
        // k/50 - 3 after it.
        func expected(_ k: Int) -> Int { k < 20 ? k : k < 220 ? 20 + (k - 20) / 4 : k - 150 }
        let (worst, margin) = Self.checkPictures(pictures, reference: patterns, expected: expected)
        #expect(worst > 31 && margin > 4, "worst \(worst) dB, \(margin) dB above a neighbour")
    }

    /// Blending and motion interpolation work on the deinterlaced fields.
    @Test(arguments: ["blend", "interpolate"]) func inBetweenFramesAreMadeFromFields(mode: String) throws {
        let folder = try TemporaryFolder("deinterlace-\(mode)")
        let (_, interlaced) = try Self.footage(in: folder)
        let output = folder.file("\(mode).mp4")
        let stdout = try Self.export(interlaced, to: output, edits: [["scale", "--range", "0.5-1", "--rate", "0.25"]],
                                     ["--fps", "60", "--frames", mode, "--preset", "ultrafast"])
        #expect(stdout.contains("deinterlaced (bwdif, top field first;"), "\(stdout)")
        #expect(try videoStream(output, "field_order")["field_order"] as? String == "progressive")
        let pictures = try Self.luma(output)
        #expect(pictures.count == 210)
        let combing = Self.mean(stride(from: 0, to: pictures.count, by: 5).map { Self.combing(pictures[$0]) })
        #expect(combing < 0.8, "combing \(combing)")
    }

    /// A progressive source goes through as before: exported losslessly, every output picture
    /// is a decoded source frame, bit for bit, and the summary says nothing of fields. The same
    /// footage interlaced is deinterlaced (its pictures are no longer the woven frames).
    @Test func progressiveSourcesAreUntouched() throws {
        let folder = try TemporaryFolder("progressive")
        let (reference, interlaced) = try Self.footage(in: folder)
        let progressive = folder.file("progressive.ts")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", reference.path, "-r", "25", "-frames:v", "50", "-c:v", "mpeg2video",
                                                   "-b:v", "8M", "-f", "mpegts", progressive.path])
        try #require(made.status == 0, "\(made.stderr)")
        let lossless = ["--fps", "25", "--crf", "0", "--preset", "ultrafast"]
        let output = folder.file("progressive.mkv")
        let stdout = try Self.export(progressive, to: output, lossless)
        #expect(!stdout.contains("deinterlaced"), "\(stdout)")
        let source = try TestSupport.frameMD5s(progressive).md5s, out = try TestSupport.frameMD5s(output).md5s
        #expect(source.count == 50 && out == source, "\(out.count) frames, \(zip(out, source).filter { $0 != $1 }.count) differ")

        let fields = folder.file("interlaced.mkv")
        #expect(try Self.export(interlaced, to: fields, lossless).contains("deinterlaced"))
        let woven = try TestSupport.frameMD5s(interlaced).md5s, deinterlaced = try TestSupport.frameMD5s(fields).md5s
        #expect(woven.count == 50 && deinterlaced.count == 50 && Set(woven).isDisjoint(with: deinterlaced))
    }
}
