import Composition
import Foundation
import Project
import TestSupport
import Testing

/// Footage shaped like real files, made by ffmpeg at test time, edited by seeded random
/// sequences of scale / remove / insert-gap, exported in passthrough, then checked by ffmpeg's
/// own decoder: every output frame is byte-identical to a source frame, in source order, with
/// nothing on `-v error`, and as many frames as the export said it wrote. These export with
/// `--keyframe-cuts` (nothing re-encoded); SmartCutTests checks frame-exact cuts.
///
/// `make test` runs 1 seed per shape, `make test-long` (SLOWPOKE_LONG_TESTS=1) 4 (ConstantRateIntegrityTests
/// uses the same seeds). `SLOWPOKE_SEEDS=N` runs N seeds per shape instead; a failure names its seed,
/// and `SLOWPOKE_SEED=K` replays one.
@Suite struct FrameIntegrityTests {
    /// A name, its container, and how ffmpeg makes it from a moving test pattern (no audio:
    /// these tests are about pictures).
    static let shapes: [(name: String, seconds: Int, rate: Int, args: [String])] = [
        ("closed-gop.mp4", 10, 30, ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "2"]),
        ("open-gop.mp4", 10, 30, ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "open-gop=1", "-bf", "3", "-g", "48"]),
        ("b-pyramid.mkv", 8, 30, ["-c:v", "libx264", "-preset", "medium", "-bf", "4", "-x264-params", "b-pyramid=normal", "-g", "60"]),
        ("long-gop.mp4", 10, 30, ["-c:v", "libx264", "-preset", "ultrafast"]),
        ("intra.mov", 6, 30, ["-c:v", "mjpeg", "-q:v", "5"]),
        ("240fps.mp4", 3, 240, ["-c:v", "libx264", "-preset", "veryfast", "-g", "120", "-bf", "3"]),
        ("hevc-bframes.mkv", 6, 30, ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "bframes=4:keyint=60:log-level=error"]),
        ("vp9.mkv", 6, 30, ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30"]),
        ("prores.mov", 4, 30, ["-c:v", "prores_ks", "-profile:v", "0", "-pix_fmt", "yuv422p10le"]),
        ("vfr.mp4", 8, 30, ["-vf", "settb=1/90000,setpts='(N/30+0.012*random(1))/TB'", "-fps_mode", "vfr",
                            "-video_track_timescale", "90000", "-c:v", "libx264", "-preset", "veryfast", "-g", "45"]),
    ]

    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let one = env["SLOWPOKE_SEED"].flatMap(UInt64.init) { return [one] }
        return Array(1...UInt64(env["SLOWPOKE_SEEDS"].flatMap(Int.init) ?? TestTier.count(1, long: 4)))
    }

    /// Random edits through the document, as the CLI makes them; refused ones are skipped.
    static func edit(_ document: URL, seed: UInt64) throws -> [String] {
        var g = SplitMix64(state: seed)
        let rates = ["1/32", "1/8", "1/4", "1/3", "1/2", "2/3", "3/2", "2", "4", "8", "32"].map(r)
        return try DocumentStore.modify(document) { (doc: inout ProjectDocument) throws(ProjectError) -> [String] in
            var applied: [String] = []
            for _ in 0..<Int.random(in: 2...6, using: &g) {
                let duration = doc.timeline.duration
                guard let picked = randomRange(within: duration, &g) else { continue }
                let edit: Edit
                switch Int.random(in: 0..<3, using: &g) {
                case 0: edit = .remove(range: picked)
                case 1:
                    guard let gap = try? TimeRange(start: picked.start, duration: s("0.5")) else { continue }
                    edit = .insertGap(range: gap)
                default:
                    guard let scaled = try? Edit.scale(range: picked, rate: rates.randomElement(using: &g)!) else { continue }
                    edit = scaled
                }
                do { try doc.apply(edit); applied.append(edit.summary) } catch { continue }
            }
            return applied
        }
    }

    /// Makes the shape `name` in `folder` with ffmpeg (once per process: ConstantRateIntegrityTests
    /// reads the same shapes).
    static func make(_ name: String, in folder: TemporaryFolder) throws -> URL {
        let shape = try #require(shapes.first { $0.name == name })
        return try GeneratedMedia.copy(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=\(shape.rate):duration=\(shape.seconds)"]
                                       + shape.args + (shape.args.contains("-pix_fmt") ? [] : ["-pix_fmt", "yuv420p"]), as: name, in: folder)
    }

    /// A copy of `source` in `subfolder` (made here), opened by `slowpoke open`: its document.
    static func openedCopy(of source: URL, in subfolder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
        let movie = subfolder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: movie)
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", movie.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        return DocumentStore.documentURL(forMovie: movie)
    }

    /// A copy of `source` in a folder of its own, opened and edited by `seed`: the document and
    /// a description naming the seed and its edits.
    static func editedCopy(of source: URL, seed: UInt64, in folder: TemporaryFolder) throws -> (document: URL, context: String) {
        let document = try openedCopy(of: source, in: folder.file("seed\(seed)"))
        let edits = try edit(document, seed: seed)
        return (document, "\(source.lastPathComponent) seed \(seed) (SLOWPOKE_SEED=\(seed)): \(edits.joined(separator: "; "))")
    }

    @Test(arguments: shapes.map(\.name)) func everyPassthroughFrameIsASourceFrameInOrder(shape name: String) throws {
        let folder = try TemporaryFolder("integrity")
        let source = try Self.make(name, in: folder)
        let (sourceMD5s, sourceErrors) = try TestSupport.frameMD5s(source)
        try #require(sourceErrors.isEmpty && sourceMD5s.count > 50, "\(sourceErrors)")
        var indices: [String: [Int]] = [:]
        for (i, md5) in sourceMD5s.enumerated() { indices[md5, default: []].append(i) }

        var exported = 0, framesChecked = 0
        for seed in Self.seeds {
            let (document, context) = try Self.editedCopy(of: source, seed: seed, in: folder)
            let output = document.deletingLastPathComponent().appendingPathComponent("out." + source.pathExtension)
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--keyframe-cuts", "-o", output.path])
            #expect(export.status == 0, "\(context)\n\(export.stderr)")
            guard export.status == 0 else { continue }
            exported += 1
            let (md5s, errors) = try TestSupport.frameMD5s(output)
            #expect(errors.isEmpty, "\(context): ffmpeg says \(errors)")
            let promised = export.stdout.split(separator: " ").firstIndex(of: "frames,").flatMap { i in
                Int(export.stdout.split(separator: " ")[i - 1])
            }
            #expect(promised == md5s.count, "\(context): the export said \(promised ?? -1) frames, ffmpeg decodes \(md5s.count)")
            var last = -1
            for (k, md5) in md5s.enumerated() {
                guard let next = indices[md5]?.first(where: { $0 > last }) else {
                    Issue.record("\(context): output frame \(k) is \(indices[md5] == nil ? "no source frame" : "out of order")")
                    break
                }
                last = next
                framesChecked += 1
            }
        }
        #expect(exported >= (Self.seeds.count + 1) / 2, "only \(exported) of \(Self.seeds.count) seeds exported")
        #expect(framesChecked >= 20 * exported, "only \(framesChecked) frames were checked")
    }
}
