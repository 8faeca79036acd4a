import Composition
import Foundation
import Project
import TestSupport
import Testing

/// Frame-exact passthrough cuts of HEVC (issue 41), on sources libx265 makes at test time,
/// with SmartCutTests' removals (edge cases and a seeded random set) and oracles: exactly the
/// frames the timeline shows, each >= 45 dB against its source frame, >= 85 % byte-identical,
/// no error from ffmpeg (`-xerror`) or from libde265 (a second decoder, whose pictures must
/// equal ffmpeg's: HEVC decoding is exact), clicks within 1 ms, and two exports of one document
/// with identical packets.
/// Not serialized: each case works in a folder of its own, and one after another the cases
/// were the last suite of `make test` to finish, minutes after the rest.
@Suite struct HEVCSmartCutTests {
    static let rate = SmartCutTests.rate, width = SmartCutTests.width, height = SmartCutTests.height
    static let dec265 = URL(fileURLWithPath: "/usr/bin/libde265-dec265")

    struct Shape: Sendable {
        let name: String
        let tenBit: Bool
        let args: [String]
        var width = HEVCSmartCutTests.width, height = HEVCSmartCutTests.height
        var pixelFormat: String { tenBit ? "yuv420p10le" : "yuv420p" }
        var frameBytes: Int { width * height * 3 / 2 * (tenBit ? 2 : 1) }
    }

    static let seconds = 30
    static let shapes = [
        Shape(name: "closed-gop.mkv", tenBit: false, args: ["-x265-params", "log-level=error:keyint=25:min-keyint=25:open-gop=0:bframes=3"]),
        // x265's default open GOPs: CRA keyframes with RASL leading pictures.
        Shape(name: "open-gop.mkv", tenBit: false, args: ["-x265-params", "log-level=error:keyint=50:min-keyint=50:bframes=4"]),
        Shape(name: "main10.mp4", tenBit: true, args: ["-profile:v", "main10", "-tag:v", "hvc1",
                                                         "-x265-params", "log-level=error:keyint=25:min-keyint=25:open-gop=0:bframes=3"]),
    ]

    static func make(_ shape: Shape, in folder: TemporaryFolder) throws -> URL {
        let source = folder.file(shape.name)
        let beeps = "aevalsrc=0.8*sin(2*PI*1000*t)*between(mod(t\\,0.2)\\,0.1\\,0.12):s=48000:d=\(seconds)"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)",
                                                   "-f", "lavfi", "-i", beeps, "-c:v", "libx265", "-preset", "veryfast", "-pix_fmt", shape.pixelFormat]
                                        + shape.args + ["-c:a", "aac", "-b:a", "192k", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        return source
    }

    /// Every picture ffmpeg decodes from `file` in the shape's pixel format, with `-xerror`.
    static func pictures(_ file: URL, _ shape: Shape, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let raw = folder.file("decoded-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                     "-f", "rawvideo", "-pix_fmt", shape.pixelFormat, "-y", raw.path])
        return (split(try Data(contentsOf: raw), shape), result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }

    static func split(_ data: Data, _ shape: Shape) -> [Data] { split(data, frameBytes: shape.frameBytes) }

    static func split(_ data: Data, frameBytes n: Int) -> [Data] {
        stride(from: 0, to: data.count - n + 1, by: n).map { data.subdata(in: $0 ..< $0 + n) }
    }

    /// PSNR of `a` against `b` over all planes, 8- or 16-bit little-endian samples.
    static func psnr(_ a: Data, _ b: Data, tenBit: Bool) -> Double {
        var sum = 0.0, count = 0
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                if tenBit {
                    let (x, y) = (pa.bindMemory(to: UInt16.self), pb.bindMemory(to: UInt16.self))
                    for i in 0..<min(x.count, y.count) { let d = Double(x[i]) - Double(y[i]); sum += d * d }
                    count = min(x.count, y.count)
                } else {
                    for i in 0..<min(pa.count, pb.count) { let d = Double(pa[i]) - Double(pb[i]); sum += d * d }
                    count = min(pa.count, pb.count)
                }
            }
        }
        guard sum > 0 else { return .infinity }
        let peak = tenBit ? 1023.0 : 255.0
        return 10 * log10(peak * peak / (sum / Double(count)))
    }

    /// libde265's pictures of `file`'s video. The Annex B stream is made here, not by FFmpeg
    /// 5.1's `hevc_mp4toannexb`, which puts the record's parameter sets before every IRAP
    /// picture even after the sets the picture carries in-band: the record's sets once, then
    /// each packet's NAL units, as a demuxer hands them to a decoder.
    static func libde265(_ file: URL, _ shape: Shape, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        try libde265(file, frameBytes: shape.frameBytes, in: folder)
    }

    /// libde265's pictures of `file`'s video, cut into pictures of `frameBytes`.
    static func libde265(_ file: URL, frameBytes: Int, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let head = folder.file("head-\(UUID().uuidString).hevc"), packets = folder.file("packets-\(UUID().uuidString).bin")
        let stream = folder.file("annexb-\(UUID().uuidString).hevc"), raw = folder.file("dec265-\(UUID().uuidString).yuv")
        defer { for f in [head, packets, stream, raw] { try? FileManager.default.removeItem(at: f) } }
        // One ffmpeg run writes both: the first packet in Annex B form, and every packet as it
        // is stored (two outputs, each file the same as a run of its own would write).
        let copied = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-c", "copy", "-frames:v", "1",
                                                     "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", "-y", head.path,
                                                     "-map", "0:v:0", "-c", "copy", "-f", "data", "-y", packets.path])
        guard copied.status == 0 else { return ([], copied.stderr) }
        var annexB = Data()
        // The record's VPS, SPS and PPS: the first NAL units of the first packet's Annex B form.
        for unit in annexBUnits(try Data(contentsOf: head)) {
            guard (32...34).contains((unit[0] >> 1) & 0x3F) else { break }
            annexB += [0, 0, 0, 1] + unit
        }
        let body = [UInt8](try Data(contentsOf: packets))
        var at = 0
        while at + 4 <= body.count {
            let length = body[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            annexB += [0, 0, 0, 1] + body[at + 4 ..< min(body.count, at + 4 + length)]
            at += 4 + length
        }
        try annexB.write(to: stream)
        let run = try TestSupport.run(dec265, ["-q", "-o", raw.path, stream.path])
        let frames = split((try? Data(contentsOf: raw)) ?? Data(), frameBytes: frameBytes)
        // dec265 reports its progress ("frame 100", "nFrames decoded: …") on stderr even with -q.
        let said = run.stderr.replacingOccurrences(of: #"frame \d+|nFrames decoded: [^\n]*"#, with: "", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return (frames, run.status == 0 ? said : "exit \(run.status): \(run.stderr)")
    }

    /// NAL units of an Annex B stream (start codes removed).
    static func annexBUnits(_ data: Data) -> [[UInt8]] {
        let bytes = [UInt8](data)
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.indices.map { k in
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : bytes.count
            while end > starts[k] && bytes[end - 1] == 0 { end -= 1 }
            return Array(bytes[starts[k] ..< end])
        }
    }

    /// The video packets' MD5s, as ffmpeg lists them.
    static func packetHashes(_ file: URL) throws -> String {
        try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"]).stdout
    }
}

extension HEVCSmartCutTests {
    /// Checks one export of `source` with `removals`; returns (frames checked, identical, libde265 pictures checked).
    static func check(_ source: URL, _ shape: Shape, sourceFrames: [Data], removals: [ClosedRange<Int>], context: String,
                      folder: TemporaryFolder) throws -> (checked: Int, identical: Int, second: Int) {
        let (document, output, export) = try SmartCutTests.exportRemoving(removals, from: source, context: context, folder: folder)
        print(export.stderr)
        #expect(!export.stderr.contains("not frame-exact"), "\(context): \(export.stderr)")

        let expected = sourceFrames.indices.filter { i in !removals.contains { $0.contains(i) } }
        let (out, errors) = try pictures(output, shape, in: folder)
        #expect(errors.isEmpty, "\(context): ffmpeg says \(errors)")
        #expect(out.count == expected.count, "\(context): \(out.count) frames, the timeline shows \(expected.count)")
        let (identical, worst, poor) = SmartCutTests.compare(out, with: expected.map { sourceFrames[$0] }) { psnr($0, $1, tenBit: shape.tenBit) }
        #expect(poor.isEmpty, "\(context): \(poor.count) output frames under 45 dB (worst \(worst) dB), first output frame \(poor.first ?? -1)")
        print("\(context): \(identical) of \(out.count) frames identical, the others at least \(worst) dB")
        #expect(Double(identical) >= 0.85 * Double(out.count), "\(context): only \(identical) of \(out.count) frames are copied")

        let second = try libde265(output, shape, in: folder)
        #expect(second.errors.isEmpty, "\(context): libde265 says \(second.errors)")
        #expect(second.frames.count == out.count, "\(context): libde265 decodes \(second.frames.count) pictures, ffmpeg \(out.count)")
        let same = zip(second.frames, out).count { $0 == $1 }
        #expect(same == out.count, "\(context): \(out.count - same) of libde265's pictures differ from ffmpeg's")

        if source.pathExtension == "mp4" {
            let tag = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                       "-of", "csv=p=0", output.path])
            #expect(tag.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hev1", "\(context): sample entry \(tag.stdout)")
        }
        // Two exports of the same document: the same packets.
        let again = output.deletingLastPathComponent().appendingPathComponent("again." + source.pathExtension)
        let repeated = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--exact", "-o", again.path])
        try #require(repeated.status == 0, "\(repeated.stderr)")
        // The same bytes are the same packets: ffmpeg lists them only where the files differ.
        #expect(try FileManager.default.contentsEqual(atPath: output.path, andPath: again.path) || packetHashes(output) == packetHashes(again),
                "\(context): two exports differ")

        try SmartCutTests.checkClicks(output, removals: removals, seconds: seconds, context: context)
        return (min(out.count, expected.count), identical, same)
    }

    @Test(arguments: shapes.map { $0.name }) func cutsAreFrameExact(shape name: String) throws {
        let folder = try TemporaryFolder("hevc-smartcut")
        let shape = try #require(Self.shapes.first { $0.name == name })
        let source = try Self.make(shape, in: folder)
        let (sourceFrames, errors) = try Self.pictures(source, shape, in: folder)
        try #require(errors.isEmpty && sourceFrames.count == Self.seconds * Self.rate, "\(errors)")
        let seed = ProcessInfo.processInfo.environment["SLOWPOKE_SEED"].flatMap(UInt64.init) ?? UInt64(name.utf8.reduce(41) { $0 &* 31 &+ UInt64($1) } % 100_000)
        var checked = 0, identical = 0, second = 0
        // The edge cases in `make test`; the seeded removals too in `make test-long`.
        let exports = TestTier.isLong || ProcessInfo.processInfo.environment["SLOWPOKE_SEED"] != nil ? 2 : 1
        for (removals, context) in [(SmartCutTests.edgeCases(frames: sourceFrames.count), "\(name) edge cases"),
                                    (SmartCutTests.randomRemovals(seed: seed, frames: sourceFrames.count), "\(name) seed \(seed) (SLOWPOKE_SEED=\(seed))")]
                                    .prefix(exports) {
            let result = try Self.check(source, shape, sourceFrames: sourceFrames, removals: removals,
                                        context: "\(context) removing frames \(removals.map { "\($0.lowerBound)-\($0.upperBound)" })", folder: folder)
            checked += result.checked
            identical += result.identical
            second += result.second
        }
        #expect(checked >= 500 * exports, "only \(checked) frames checked")
        #expect(second >= 500 * exports, "only \(second) libde265 pictures checked")
        #expect(identical < checked, "no frame was re-encoded, so the cuts were not made inside GOPs")
    }
}

extension HEVCSmartCutTests {
    /// Side data of every decoded frame of `file`: (key frame, its side data types and values as
    /// ffprobe prints them).
    static func frameSideData(_ file: URL) throws -> [(key: Bool, data: String)] {
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-show_frames", "-show_entries",
                                                     "frame=key_frame:side_data=side_data_type,red_x,white_point_y,max_luminance,min_luminance,max_content,max_average",
                                                     "-of", "json", file.path])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        // Packets have side data too, so ffprobe lists both.
        let frames = (json?["packets_and_frames"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "frame" }
        return frames.map { frame in
            let list = (frame["side_data_list"] as? [[String: Any]] ?? []).filter {
                ["Mastering display metadata", "Content light level metadata"].contains($0["side_data_type"] as? String ?? "")
            }
            let data = list.map { entry in entry.keys.sorted().map { "\($0)=\(entry[$0]!)" }.joined(separator: "|") }.sorted().joined(separator: "; ")
            return ((frame["key_frame"] as? Int) == 1, data)
        }
    }

    /// HDR10 around a cut: the re-encoded frames carry the source's mastering display (on their
    /// IDR, as the source's keyframes do) and content light level (on every frame).
    @Test func staticHDRMetadataIsCarried() throws {
        let folder = try TemporaryFolder("hevc-hdr")
        let shape = Shape(name: "hdr10.mkv", tenBit: true, args: [])
        let source = folder.file(shape.name)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=\(Self.rate):duration=8",
                                                   "-c:v", "libx265", "-preset", "veryfast", "-pix_fmt", "yuv420p10le", "-profile:v", "main10",
                                                   "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-x265-params",
                                                   "log-level=error:keyint=25:open-gop=0:bframes=3:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50):max-cll=1000,400",
                                                   source.path])
        try #require(made.status == 0, "\(made.stderr)")
        let (_, output, export) = try SmartCutTests.exportRemoving([28...37, 80...80], from: source, context: "hdr10.mkv", folder: folder)
        #expect(export.stdout.contains("re-encoded at 2 cuts"), "\(export.stdout)")
        let sourceData = try Self.frameSideData(source), outputData = try Self.frameSideData(output)
        let keyData = Set(sourceData.filter(\.key).map(\.data))
        try #require(keyData.count == 1 && keyData.first!.contains("Mastering display") && keyData.first!.contains("max_content=1000"), "\(keyData)")
        #expect(outputData.count == 189)
        // The source's keyframes at 0..7 s, and each re-encoded span's IDR.
        #expect(outputData.filter(\.key).count > 8, "\(outputData.filter(\.key).count) key frames")
        #expect(outputData.filter(\.key).allSatisfy { $0.data == keyData.first! }, "a key frame lacks the source's HDR metadata")
        #expect(outputData.allSatisfy { $0.data.contains("max_average=400|max_content=1000") }, "a frame lacks the content light level")
        let (frames, errors) = try Self.pictures(output, shape, in: folder)
        #expect(errors.isEmpty && frames.count == 189, "\(errors) \(frames.count)")
        let second = try Self.libde265(output, shape, in: folder)
        #expect(second.errors.isEmpty && second.frames == frames, "libde265: \(second.errors), \(second.frames.count) pictures")
    }
}

extension HEVCSmartCutTests {
    /// A 4 s HEVC movie without audio, made by libx265 (ultrafast) with `params`.
    static func pictureOnly(_ name: String, pixelFormat: String, params: String, in folder: TemporaryFolder) throws -> URL {
        let source = folder.file(name)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=4",
                                                   "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", pixelFormat,
                                                   "-x265-params", params, source.path])
        try #require(made.status == 0, "\(made.stderr)")
        return source
    }

    /// HEVC that libx265 here cannot match (4:4:4, the Main 4:4:4 profile) is cut at keyframes,
    /// and the export says why.
    @Test func otherHEVCIsCutAtKeyframesSayingWhy() throws {
        let folder = try TemporaryFolder("hevc-444")
        let source = try Self.pictureOnly("rext.mkv", pixelFormat: "yuv444p", params: "log-level=error:keyint=25", in: folder)
        let (_, _, export) = try SmartCutTests.exportRemoving([30...40], from: source, context: "rext.mkv", folder: folder)
        #expect(export.stderr.contains("passthrough cuts rext.mkv at keyframes, not frame-exact, because rext.mkv's video is yuv444p, not 8- or 10-bit 4:2:0"),
                "\(export.stderr)")
        #expect(!export.stdout.contains("re-encoded"), "\(export.stdout)")
    }
}

extension HEVCSmartCutTests {
    /// The re-encoded frames' own VPS and SPS signal the stream's level (4.1 here), not the
    /// lowest level x265 would choose for 160x96 (1).
    @Test func reEncodedParameterSetsSignalTheStreamsLevel() throws {
        let folder = try TemporaryFolder("hevc-level")
        let source = try Self.pictureOnly("level41.mkv", pixelFormat: "yuv420p", params: "log-level=error:keyint=25:open-gop=0:level-idc=41", in: folder)
        let (_, output, export) = try SmartCutTests.exportRemoving([30...40], from: source, context: "level41.mkv", folder: folder)
        #expect(export.stdout.contains("re-encoded at 1 cut"), "\(export.stdout)")
        let stream = folder.file("level41.hevc")
        let annexB = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", output.path, "-map", "0:v", "-c", "copy", "-f", "hevc", "-y", stream.path])
        try #require(annexB.status == 0, "\(annexB.stderr)")
        // general_level_idc: 17 bytes into a VPS's RBSP, 14 into an SPS's.
        var levels: [Int] = [], sets: Set<[UInt8]> = []
        for unit in Self.annexBUnits(try Data(contentsOf: stream)) where [32, 33].contains((unit[0] >> 1) & 0x3F) {
            var rbsp: [UInt8] = [], zeros = 0
            for b in unit {
                if zeros >= 2 && b == 3 { zeros = 0; continue }
                zeros = b == 0 ? zeros + 1 : 0
                rbsp.append(b)
            }
            let offset = (unit[0] >> 1) & 0x3F == 32 ? 17 : 14
            guard rbsp.count > offset else { continue }
            levels.append(Int(rbsp[offset]))
            sets.insert(unit)
        }
        // The stream's own VPS and SPS and x265's (other bytes) are both there.
        #expect(sets.count >= 4, "\(sets.count) distinct VPS/SPS units")
        #expect(!levels.isEmpty && levels.allSatisfy { $0 == 123 }, "levels \(Set(levels))")
    }
}
