import Composition
import Foundation
import Project
import TestSupport
import Testing

/// Frame-exact passthrough cuts (issue 41), checked by frame oracles on H.264 sources that
/// ffmpeg makes at test time (25 fps, so every frame boundary is an exact decimal), with removals
/// on frame boundaries: fixed edge cases (two removals in one GOP, a single frame, one from the
/// first frame, one to the last) and seeded random ones (the seed is printed).
///
/// Each export must have exactly the frames the timeline shows, each at least 45 dB against the
/// source frame it should show and at least 85 % byte-identical to it; ffmpeg (`-xerror`) and
/// Cisco's OpenH264 (a second decoder, built from Tests/Decoders/openh264-decode.c)
/// decode it without an error; and the audio's clicks land within 1 ms of where the timeline
/// puts them. OpenH264 2.3 decodes x264's B-frames differently from FFmpeg (on the sources
/// themselves), so its pictures are checked against its own decode of the source and FFmpeg's
/// of the output. Exporting the same document twice gives the same video packets. x264's open
/// GOPs (CABAC and CAVLC) resume copying at their recovery points, rewritten as IDR pictures.
/// Not serialized: each case works in a folder of its own, and one after another the cases
/// were the last suite of `make test` to finish, minutes after the rest.
@Suite struct SmartCutTests {
    static let rate = 25, width = 160, height = 96
    static var frameBytes: Int { width * height * 3 / 2 }

    /// Long enough that the re-encoded frames (up to a GOP a cut) stay under 15 %: 40 s of 1 s
    /// and 2 s GOPs, 200 s of 8 s GOPs.
    static let shapes: [(name: String, seconds: Int, args: [String])] = [
        ("closed-gop.mp4", 40, ["-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-bf", "2"]),
        ("open-gop.mp4", 40, ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "open-gop=1", "-bf", "3", "-g", "50"]),
        ("open-gop-cavlc.mkv", 40, ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "open-gop=1:cabac=0", "-bf", "3", "-g", "50"]),
        // x264's medium preset names a weighted reference twice (a list modification that goes
        // round MaxFrameNum), which the check of what a recovery point's pictures refer to follows.
        ("open-gop-pyramid.mp4", 40, ["-c:v", "libx264", "-preset", "medium", "-bf", "4", "-x264-params", "open-gop=1:b-pyramid=normal", "-g", "50"]),
        ("long-gop.mp4", 200, ["-c:v", "libx264", "-preset", "veryfast", "-g", "200", "-keyint_min", "200", "-sc_threshold", "0", "-bf", "3"]),
        ("b-pyramid.mp4", 40, ["-c:v", "libx264", "-preset", "medium", "-bf", "4", "-x264-params", "b-pyramid=normal", "-g", "50"]),
        ("b-pyramid.mkv", 40, ["-c:v", "libx264", "-preset", "medium", "-bf", "4", "-x264-params", "b-pyramid=normal", "-g", "50"]),
        // 10-bit High 10 (OpenH264 decodes 8-bit only; the pictures are compared as 8-bit).
        ("high10.mp4", 40, ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p10le", "-profile:v", "high10", "-bf", "3", "-g", "50"]),
    ]

    /// Whether a shape is 10-bit, which only FFmpeg's decoder here reads.
    static func tenBit(_ name: String) -> Bool { name.hasPrefix("high10") }

    /// Removals as inclusive source frame ranges: from the first frame, two in one GOP, a single
    /// frame, and to the last frame (of `frames`).
    static func edgeCases(frames: Int) -> [ClosedRange<Int>] { [0...6, 53...55, 60...62, 131...131, (frames - 12)...(frames - 1)] }

    static func randomRemovals(seed: UInt64, frames: Int) -> [ClosedRange<Int>] {
        var g = SplitMix64(state: seed)
        var taken: [ClosedRange<Int>] = []
        for _ in 0..<Int.random(in: 1...3, using: &g) {
            let start = Int.random(in: 0..<(frames - 1), using: &g)
            let range = start...min(frames - 1, start + Int.random(in: 0...40, using: &g))
            if !taken.contains(where: { $0.overlaps(range) || $0.upperBound + 1 == range.lowerBound || range.upperBound + 1 == $0.lowerBound }) {
                taken.append(range)
            }
        }
        return taken.sorted { $0.lowerBound < $1.lowerBound }
    }

    static func make(_ shape: (name: String, seconds: Int, args: [String]), in folder: TemporaryFolder) throws -> URL {
        let seconds = shape.seconds
        let source = folder.file(shape.name)
        // A beep (20 ms of 1 kHz) every 0.2 s, from 0.1 s + 0.2 k, for the audio's sync.
        let beeps = "aevalsrc=0.8*sin(2*PI*1000*t)*between(mod(t\\,0.2)\\,0.1\\,0.12):s=48000:d=\(seconds)"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)",
                                                   "-f", "lavfi", "-i", beeps]
                                        + shape.args + (shape.args.contains("-pix_fmt") ? [] : ["-pix_fmt", "yuv420p"])
                                        + ["-c:a", "aac", "-b:a", "192k", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        return source
    }

    /// Every picture ffmpeg decodes from `file`, packed yuv420p, with `-xerror`.
    static func pictures(_ file: URL, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let raw = folder.file("decoded-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                     "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", raw.path])
        return (split(try Data(contentsOf: raw)), result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }

    static func split(_ data: Data) -> [Data] {
        stride(from: 0, to: data.count - frameBytes + 1, by: frameBytes).map { data.subdata(in: $0 ..< $0 + frameBytes) }
    }

    /// PSNR of `a` against `b` over all three planes (infinity when identical).
    static func psnr(_ a: Data, _ b: Data) -> Double {
        var sum = 0.0
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                for i in 0..<min(pa.count, pb.count) {
                    let d = Double(pa[i]) - Double(pb[i])
                    sum += d * d
                }
            }
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(a.count)))
    }

    /// OpenH264's pictures of `file`'s video (its Annex B stream), or its error.
    static func openH264(_ file: URL, decoder: URL, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        try openH264(file, frameBytes: frameBytes, decoder: decoder, in: folder)
    }

    /// OpenH264's pictures of `file`'s video, cut into pictures of `frameBytes`.
    static func openH264(_ file: URL, frameBytes: Int, decoder: URL, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let stream = folder.file("annexb-\(UUID().uuidString).h264"), raw = folder.file("openh264-\(UUID().uuidString).yuv")
        defer { for f in [stream, raw] { try? FileManager.default.removeItem(at: f) } }
        let annexB = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-c", "copy",
                                                     "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-y", stream.path])
        guard annexB.status == 0 else { return ([], annexB.stderr) }
        let run = try TestSupport.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(decoder.path)' < '\(stream.path)' > '\(raw.path)'"])
        return (HEVCSmartCutTests.split(try Data(contentsOf: raw), frameBytes: frameBytes), run.status == 0 ? "" : run.stderr)
    }

    /// The OpenH264 test decoder, compiled (once per process; `folder` is not used).
    static func buildOpenH264(in folder: TemporaryFolder) throws -> URL {
        let source = TestSupport.root.appendingPathComponent("Tests/Decoders/openh264-decode.c")
        return try GeneratedMedia.shared(["cc", "-O2", source.path, "-lopenh264"], extension: "") { binary in
            let built = try TestSupport.tool("cc", ["-O2", "-o", binary.path, source.path, "-lopenh264"])
            try #require(built.status == 0, "building the OpenH264 test decoder (make test-deps installs libopenh264-dev): \(built.stderr)")
        }
    }

    /// A copy of `source` opened as a document, `removals` made, exported with `--exact` to
    /// `out.<ext>` beside it.
    static func exportRemoving(_ removals: [ClosedRange<Int>], from source: URL, context: String, folder: TemporaryFolder) throws
        -> (document: URL, output: URL, export: (status: Int32, stdout: String, stderr: String)) {
        let seedFolder = folder.file(UUID().uuidString)
        let document = try FrameIntegrityTests.openedCopy(of: source, in: seedFolder)
        // Last first, so the earlier ones' times are still source times; frame n starts at
        // n/25 s, an exact decimal.
        for range in removals.reversed() {
            let times = [range.lowerBound, range.upperBound + 1].map { String(format: "%.2f", Double($0) / Double(rate)) }
            let removed = try TestSupport.run(TestSupport.slowpoke, ["remove", document.path, "--range", "\(times[0])-\(times[1])"])
            try #require(removed.status == 0, "\(removed.stderr)")
        }
        let output = seedFolder.appendingPathComponent("out." + source.pathExtension)
        // --exact: the cuts where the document has them (by default an export fits them to the
        // copied audio's frames, FittedTimelineTests), which the frame oracles compare with.
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--exact", "-o", output.path])
        try #require(export.status == 0, "\(context)\n\(export.stderr)")
        print("\(context): \(export.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        return (document, output, (export.status, export.stdout, export.stderr))
    }

    /// Output pictures against the source pictures they should show: how many are identical,
    /// the worst PSNR of the others, and the output frames under 45 dB.
    static func compare(_ out: [Data], with wanted: [Data], psnr: (Data, Data) -> Double) -> (identical: Int, worst: Double, poor: [Int]) {
        var identical = 0, worst = Double.infinity
        var poor: [Int] = []
        for (k, (picture, want)) in zip(out, wanted).enumerated() {
            if picture == want { identical += 1; continue }
            let quality = psnr(picture, want)
            worst = min(worst, quality)
            if quality < 45 { poor.append(k) }
        }
        return (identical, worst, poor)
    }

    /// Checks one export of `source` with `removals`; returns (frames checked, frames identical).
    static func check(_ source: URL, sourceFrames: [Data], openH264Source: Set<Int>, removals: [ClosedRange<Int>], context: String,
                      decoder: URL, folder: TemporaryFolder) throws -> (checked: Int, identical: Int) {
        let (document, output, export) = try exportRemoving(removals, from: source, context: context, folder: folder)

        let expected = sourceFrames.indices.filter { i in !removals.contains { $0.contains(i) } }
        let (out, errors) = try pictures(output, in: folder)
        #expect(errors.isEmpty, "\(context): ffmpeg says \(errors)")
        #expect(out.count == expected.count, "\(context): \(out.count) frames, the timeline shows \(expected.count)")
        let (identical, worst, poor) = compare(out, with: expected.map { sourceFrames[$0] }, psnr: psnr)
        #expect(poor.isEmpty, "\(context): \(poor.count) output frames are under 45 dB against the source frame they should show (the worst \(worst) dB), the first output frame \(poor.first ?? -1)")
        print("\(context): \(identical) of \(out.count) frames identical, the others at least \(worst) dB")
        // x264's open GOPs have one IDR picture, at the start: copying resumes at their recovery
        // points too, rewritten as IDR pictures, so nothing says it re-encodes past them.
        #expect(Double(identical) >= 0.85 * Double(out.count), "\(context): only \(identical) of \(out.count) frames are copied")
        #expect(!export.stderr.contains("open-GOP recovery points"), "\(context): \(export.stderr)")

        if !tenBit(source.lastPathComponent) {
            let second = try openH264(output, decoder: decoder, in: folder)
            #expect(second.errors.isEmpty, "\(context): OpenH264 says \(second.errors)")
            #expect(second.frames.count == expected.count, "\(context): OpenH264 decodes \(second.frames.count) pictures")
            let known = openH264Source.union(out.map(\.hashValue))
            #expect(second.frames.allSatisfy { known.contains($0.hashValue) }, "\(context): OpenH264 decodes pictures neither decoder made of the source or output")
        }

        try checkClicks(output, removals: removals, seconds: sourceFrames.count / rate, context: context)

        // The same document exported again gives the same video packets.
        let again = output.deletingLastPathComponent().appendingPathComponent("again." + source.pathExtension)
        let exportedAgain = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--exact", "-o", again.path])
        try #require(exportedAgain.status == 0, "\(context)\n\(exportedAgain.stderr)")
        // The same bytes are the same packets: ffmpeg lists them only where the files differ.
        #expect(try FileManager.default.contentsEqual(atPath: output.path, andPath: again.path) || packets(output) == packets(again),
                "\(context): two exports of one document differ in their video packets")
        return (min(out.count, expected.count), identical)
    }

    /// The video packets' checksums and times (`-f framemd5`), which a second export must repeat.
    static func packets(_ file: URL) throws -> String {
        let listed = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"])
        try #require(listed.status == 0, "\(listed.stderr)")
        return listed.stdout
    }

    /// The beeps at 0.1 s + 0.2 k of source time start where the timeline puts them, within
    /// 1 ms (those within 50 ms of a cut, where the audio is spliced, aside).
    static func checkClicks(_ output: URL, removals: [ClosedRange<Int>], seconds: Int, context: String) throws {
        let onsets = Signals.onsets(try TestSupport.decodeAudio(output), threshold: 0.05, quiet: 1200).map { Double($0) / 48000 }
        let cuts = removals.map { (Double($0.lowerBound) / Double(rate), Double($0.upperBound + 1) / Double(rate)) }
        var checked = 0
        for k in 0..<(seconds * 5) {
            let t = 0.1 + 0.2 * Double(k)
            guard !cuts.contains(where: { t > $0.0 - 0.05 && t < $0.1 + 0.05 }) else { continue }
            let mapped = t - cuts.filter { $0.1 <= t }.reduce(0) { $0 + $1.1 - $1.0 }
            guard let heard = onsets.min(by: { abs($0 - mapped) < abs($1 - mapped) }) else { break }
            #expect(abs(heard - mapped) <= 0.001, "\(context): the beep of source \(t) s starts at \(heard) s, not \(mapped) s")
            checked += 1
        }
        #expect(checked >= 20, "\(context): only \(checked) beeps checked")
    }

    @Test(arguments: shapes.map(\.name)) func cutsAreFrameExact(shape name: String) throws {
        let folder = try TemporaryFolder("smartcut")
        let shape = try #require(Self.shapes.first { $0.name == name })
        let source = try Self.make(shape, in: folder)
        let decoder = try Self.buildOpenH264(in: folder)
        let (sourceFrames, errors) = try Self.pictures(source, in: folder)
        try #require(errors.isEmpty && sourceFrames.count == shape.seconds * Self.rate, "\(errors)")
        let openH264Source: (frames: [Data], errors: String) = Self.tenBit(name) ? ([], "") : try Self.openH264(source, decoder: decoder, in: folder)
        try #require(openH264Source.errors.isEmpty, "\(openH264Source.errors)")
        let seed = ProcessInfo.processInfo.environment["SLOWPOKE_SEED"].flatMap(UInt64.init) ?? UInt64(name.utf8.reduce(41) { $0 &* 31 &+ UInt64($1) } % 100_000)
        var checked = 0, identical = 0
        // The edge cases in `make test`; the seeded removals too in `make test-long`.
        for (removals, context) in [(Self.edgeCases(frames: sourceFrames.count), "\(name) edge cases"),
                                    (Self.randomRemovals(seed: seed, frames: sourceFrames.count), "\(name) seed \(seed) (SLOWPOKE_SEED=\(seed))")]
                                    .prefix(TestTier.isLong || ProcessInfo.processInfo.environment["SLOWPOKE_SEED"] != nil ? 2 : 1) {
            let result = try Self.check(source, sourceFrames: sourceFrames, openH264Source: Set(openH264Source.frames.map(\.hashValue)), removals: removals,
                                        context: "\(context) removing frames \(removals.map { "\($0.lowerBound)-\($0.upperBound)" })",
                                        decoder: decoder, folder: folder)
            checked += result.checked
            identical += result.identical
        }
        #expect(checked >= 400, "only \(checked) frames checked")
        #expect(identical < checked, "no frame was re-encoded, so the cuts were not made inside GOPs")
    }
}
