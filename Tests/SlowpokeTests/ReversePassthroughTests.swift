import Foundation
import TestSupport
import Testing

/// Passthrough of reversed ranges (issue 42, item 3), checked by frame oracles on 6 s, 30 fps
/// testsrc2 clips (every frame distinct) that ffmpeg makes at test time, after
/// `reverse --range 2-4` (source frames 60..119): intra streams are copied packet for packet in
/// reverse order, long-GOP H.264 is re-encoded backwards (at least 45 dB, ffmpeg and OpenH264
/// decode it without an error), a reverse scaled by 0.5 doubles the copied frames' durations,
/// and what passthrough cannot reverse is refused before any work, naming --fps.
@Suite(.serialized) struct ReversePassthroughTests {
    static let rate = 30, seconds = 6, width = 160, height = 96
    static let frames = rate * seconds
    /// Source frames 60..119 reversed: the frame each output frame should show.
    static let expected = Array(0..<60) + Array((60..<120).reversed()) + Array(120..<180)

    static func make(_ name: String, _ args: [String], in folder: TemporaryFolder) throws -> URL {
        let source = folder.file(name)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                                   "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)"] + args + ["-an", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        return source
    }

    /// Opens a copy of `source`, applies `edits` (each a slowpoke command's arguments after the
    /// document) and exports it to `out.<ext>` with `options`.
    static func export(_ source: URL, edits: [[String]], ext: String, options: [String] = [], in folder: TemporaryFolder)
        throws -> (output: URL, result: TestSupport.Result, document: URL) {
        let document = try FrameIntegrityTests.openedCopy(of: source, in: folder.file(UUID().uuidString))
        for edit in edits {
            let done = try TestSupport.run(TestSupport.slowpoke, [edit[0], document.path] + edit.dropFirst())
            try #require(done.status == 0, "\(edit): \(done.stderr)")
        }
        let output = document.deletingLastPathComponent().appendingPathComponent("out." + ext)
        let result = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path] + options)
        return (output, result, document)
    }

    /// Each video packet's MD5 (bytes as stored), in decode order.
    static func packetMD5s(_ file: URL) throws -> [String] {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Each frame's presentation time and how long it shows (to the next frame; the last one's
    /// stored duration, or the stream's end), in seconds, in presentation order. Matroska keeps
    /// no per-block durations, so they are taken from the times.
    static func frameTimes(_ file: URL) throws -> [(pts: Double, duration: Double)] {
        let json = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time:stream=duration"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        let pts = packets.compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
        let streams = json["streams"] as? [[String: Any]]
        let end = (streams?.first?["duration"] as? String).flatMap(Double.init)
            ?? (packets.last?["duration_time"] as? String).flatMap(Double.init).map { (pts.last ?? 0) + $0 } ?? 0
        return pts.enumerated().map { k, t in (t, (k + 1 < pts.count ? pts[k + 1] : max(end, t)) - t) }
    }

    static let intra: [(name: String, args: [String])] = [
        ("mjpeg.mkv", ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p"]),
        ("prores.mov", ["-c:v", "prores_ks", "-profile:v", "0"]),
    ]

    /// (a) Intra frames: the reversed range is the source's packets, byte for byte, last first.
    @Test(arguments: intra.map(\.name)) func intraFramesAreCopiedBackwards(name: String) throws {
        let folder = try TemporaryFolder("reverse-intra")
        let shape = try #require(Self.intra.first { $0.name == name })
        let source = try Self.make(name, shape.args, in: folder)
        let ext = (name as NSString).pathExtension
        let (output, result, document) = try Self.export(source, edits: [["reverse", "--range", "2-4"]], ext: ext, in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("re-encoded"), "\(result.stdout)")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        #expect(info.stdout.contains("nothing re-encoded; 180 frames copied"), "\(info.stdout)")

        let (sourceMD5s, sourceErrors) = try TestSupport.frameMD5s(source)
        try #require(sourceErrors.isEmpty && sourceMD5s.count == Self.frames, "\(sourceErrors)")
        let (md5s, errors) = try TestSupport.frameMD5s(output)
        #expect(errors.isEmpty, "ffmpeg says \(errors)")
        #expect(md5s.count == Self.frames)
        var checked = 0
        for (k, md5) in md5s.prefix(Self.frames).enumerated() {
            #expect(md5 == sourceMD5s[Self.expected[k]], "\(name): output frame \(k) is not source frame \(Self.expected[k])")
            checked += 1
        }
        // The packets themselves are the source's, reordered, and as many.
        let sourcePackets = try Self.packetMD5s(source), packets = try Self.packetMD5s(output)
        #expect(packets.count == sourcePackets.count, "\(name): \(packets.count) packets, the source has \(sourcePackets.count)")
        #expect(packets == Self.expected.map { sourcePackets[$0] }, "\(name): the packets are not the source's in the reversed order")
        // Every frame at its place: frame k at k/30 s, lasting 1/30 s.
        let times = try Self.frameTimes(output)
        #expect(times.count == Self.frames)
        for (k, t) in times.enumerated() {
            #expect(abs(t.pts - Double(k) / 30) < 0.0011 && abs(t.duration - 1.0 / 30) < 0.0011, "\(name): frame \(k) at \(t)")
        }
        #expect(checked >= Self.frames, "only \(checked) frames checked")
    }

    /// With audio (AAC beside ProRes): the frames as without it, and the audio stream there and
    /// as long as the timeline (what it plays backwards is the audio renderer's, checked there).
    @Test func aMovieWithAudioKeepsItsAudioStream() throws {
        let folder = try TemporaryFolder("reverse-audio")
        let source = folder.file("prores-aac.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=\(Self.rate):duration=\(Self.seconds)",
                                                   "-f", "lavfi", "-i", "sine=f=440:d=\(Self.seconds)", "-c:v", "prores_ks", "-profile:v", "0",
                                                   "-c:a", "aac", "-shortest", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        let (output, result, _) = try Self.export(source, edits: [["reverse", "--range", "2-4"]], ext: "mov", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let (sourceMD5s, _) = try TestSupport.frameMD5s(source)
        let (md5s, errors) = try TestSupport.frameMD5s(output)
        #expect(errors.isEmpty, "ffmpeg says \(errors)")
        try #require(sourceMD5s.count == Self.frames && md5s.count == Self.frames, "\(md5s.count) frames")
        #expect(md5s == Self.expected.map { sourceMD5s[$0] }, "the frames are not the source's with 60..119 reversed")
        let json = try TestSupport.ffprobe(output, ["-show_entries", "stream=codec_type,duration"])
        let audio = (json["streams"] as? [[String: Any]] ?? []).filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.count == 1, "\(json)")
        let seconds = (audio.first?["duration"] as? String).flatMap(Double.init) ?? 0
        #expect(abs(seconds - Double(Self.seconds)) < 0.05, "the audio lasts \(seconds) s")
    }

    /// (c) Reverse then half speed: the range plays backwards with every frame lasting 2/30 s.
    @Test func reversedAndSlowedIntraFramesLastTwiceAsLong() throws {
        let folder = try TemporaryFolder("reverse-scale")
        let shape = Self.intra[1]
        let source = try Self.make(shape.name, shape.args, in: folder)
        let (output, result, _) = try Self.export(source, edits: [["reverse", "--range", "2-4"], ["scale", "--range", "2-4", "--rate", "0.5"]],
                                                  ext: "mov", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let (sourceMD5s, _) = try TestSupport.frameMD5s(source)
        let (md5s, errors) = try TestSupport.frameMD5s(output)
        #expect(errors.isEmpty, "ffmpeg says \(errors)")
        try #require(md5s.count == Self.frames, "\(md5s.count) frames")
        #expect(md5s == Self.expected.map { sourceMD5s[$0] }, "the frames are not the source's with 60..119 reversed")
        let times = try Self.frameTimes(output)
        try #require(times.count == Self.frames)
        var checked = 0
        for (k, t) in times.enumerated() {
            // 0-2 s as before, the reversed range over 2-6 s at 2/30 s a frame, the rest 2 s later.
            let start: Double, duration: Double
            if k < 60 {
                (start, duration) = (Double(k) / 30, 1.0 / 30)
            } else if k < 120 {
                (start, duration) = (2 + Double(k - 60) * 2 / 30, 2.0 / 30)
            } else {
                (start, duration) = (6 + Double(k - 120) / 30, 1.0 / 30)
            }
            #expect(abs(t.pts - start) < 0.0011 && abs(t.duration - duration) < 0.0011, "frame \(k) at \(t), not (\(start), \(duration))")
            checked += 1
        }
        #expect(checked >= Self.frames, "only \(checked) frames checked")
    }

    /// (b) Long-GOP H.264: frames outside the range copied (or re-encoded at its boundaries),
    /// the range re-encoded last to first at 45 dB or better, both decoders content, the count
    /// said by the export and by info, and the same packets from a second export.
    @Test func longGOPFramesAreReencodedBackwards() throws {
        let folder = try TemporaryFolder("reverse-longgop")
        let source = try Self.make("long-gop.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-g", "48", "-keyint_min", "48",
                                                    "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p"], in: folder)
        let decoder = try SmartCutTests.buildOpenH264(in: folder)
        let (sourceFrames, sourceErrors) = try SmartCutTests.pictures(source, in: folder)
        try #require(sourceErrors.isEmpty && sourceFrames.count == Self.frames, "\(sourceErrors)")
        let openH264Source = try SmartCutTests.openH264(source, decoder: decoder, in: folder)
        try #require(openH264Source.errors.isEmpty, "\(openH264Source.errors)")

        let (output, result, document) = try Self.export(source, edits: [["reverse", "--range", "2-4"]], ext: "mp4", in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        print("long GOP reversed: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        let said = try #require(result.stdout.firstMatch(of: /(\d+) frames re-encoded at ([^;]*);/), "\(result.stdout)")
        let reported = Int(said.1)!
        #expect(said.2.contains("1 reversed range"), "\(result.stdout)")

        let (out, errors) = try SmartCutTests.pictures(output, in: folder)
        #expect(errors.isEmpty, "ffmpeg says \(errors)")
        try #require(out.count == Self.frames, "\(out.count) frames")
        var changed: [Int] = [], poor: [Int] = [], worst = Double.infinity
        for (k, picture) in out.enumerated() where picture != sourceFrames[Self.expected[k]] {
            changed.append(k)
            let quality = SmartCutTests.psnr(picture, sourceFrames[Self.expected[k]])
            worst = min(worst, quality)
            if quality < 45 { poor.append(k) }
        }
        print("long GOP reversed: \(Self.frames - changed.count) frames identical, \(changed.count) re-encoded, the worst at \(worst) dB")
        #expect(poor.isEmpty, "\(poor.count) frames under 45 dB (worst \(worst) dB), the first output frame \(poor.first ?? -1)")
        // The range is re-encoded whole; outside it only boundary frames: B-frames shown just
        // before it, and the frames after it up to the next keyframe (frame 144).
        #expect((60..<120).allSatisfy(changed.contains), "frames of the reversed range are byte-identical to the source")
        let outside = changed.filter { !(60..<120).contains($0) }
        #expect(outside.allSatisfy { (52..<60).contains($0) || (120..<144).contains($0) }, "re-encoded outside the range: \(outside)")
        #expect(reported == changed.count, "the export says \(reported) frames re-encoded; \(changed.count) differ from the source")

        let second = try SmartCutTests.openH264(output, decoder: decoder, in: folder)
        #expect(second.errors.isEmpty, "OpenH264 says \(second.errors)")
        #expect(second.frames.count == Self.frames, "OpenH264 decodes \(second.frames.count) pictures")
        let known = Set(openH264Source.frames.map(\.hashValue)).union(out.map(\.hashValue))
        #expect(second.frames.allSatisfy { known.contains($0.hashValue) }, "OpenH264 decodes pictures neither decoder made of the source or output")

        // info counts the same frames in advance.
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        #expect(info.stdout.contains("\(reported) frames re-encoded at 2 cuts and 1 reversed range")
                || info.stdout.contains("\(reported) frames re-encoded at 1 reversed range"), "\(info.stdout)")
        // Deterministic: a second export gives the same packets.
        let again = document.deletingLastPathComponent().appendingPathComponent("again.mp4")
        let rerun = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", again.path])
        try #require(rerun.status == 0, "\(rerun.stderr)")
        #expect(try Self.packetMD5s(again) == Self.packetMD5s(output), "two exports differ")
        #expect(out.count >= Self.frames, "only \(out.count) frames checked")
    }

    /// (d) What passthrough cannot reverse is refused before any work, naming --fps, and
    /// leaves nothing behind: VP9, and --keyframe-cuts.
    @Test func unsupportedReversesAreRefused() throws {
        let folder = try TemporaryFolder("reverse-refused")
        let vp9 = try Self.make("vp9.mkv", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "48"], in: folder)
        let mjpeg = try Self.make(Self.intra[0].name, Self.intra[0].args, in: folder)
        var checked = 0
        for (source, options, reason) in [(vp9, [String](), "vp9"), (mjpeg, ["--keyframe-cuts"], "--keyframe-cuts")] {
            let (output, result, document) = try Self.export(source, edits: [["reverse", "--range", "2-4"]], ext: "mkv", options: options, in: folder)
            #expect(result.status != 0, "\(source.lastPathComponent) \(options): exported")
            #expect(result.stderr.contains("plays 2") && result.stderr.contains("backwards"), "\(result.stderr)")
            #expect(result.stderr.contains("--fps") && result.stderr.contains(reason), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let left = try FileManager.default.contentsOfDirectory(atPath: document.deletingLastPathComponent().path)
            #expect(!left.contains { $0.hasPrefix("out") || $0.contains("slowpoke-tmp") }, "left behind: \(left)")
            checked += 1
        }
        #expect(checked == 2)
    }
}
