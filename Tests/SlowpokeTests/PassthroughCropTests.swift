import Foundation
import TestSupport
import Testing

/// Issue 56: `export --crop` without `--fps` crops H.264 and HEVC by rewriting the SPS cropping
/// window. On x264 and x265 sources (B-frames, 4:2:0, one Main 10, one with in-band parameter
/// sets before every IDR): every video packet's slices are copied (each packet's size and MD5
/// with its parameter sets left out), FFmpeg's and a second decoder's pictures (OpenH264,
/// libde265) are the source's pictures cropped by FFmpeg's crop filter, ffprobe reports the
/// cropped size (and the sample aspect ratio kept). FFmpeg's decoders move a left edge that is
/// not 64-pixel aligned (4:2:0 8-bit) left to keep their buffers aligned unless asked not to
/// (`-flags unaligned`), so the decodes here ask.
@Suite(.serialized) struct PassthroughCropTests {
    struct Source: Sendable {
        let name: String
        let hevc: Bool
        let tenBit: Bool
        let args: [String]
        /// Encoded without a global header: the SPS and PPS travel in band before every IDR too.
        var inBand = false
    }

    static let sources = [
        Source(name: "x264-pyramid.mp4", hevc: false, tenBit: false,
               args: ["-vf", "setsar=4/3", "-c:v", "libx264", "-x264-params", "keyint=25:bframes=3:b-pyramid=normal:ref=4"]),
        Source(name: "x264-inband.mp4", hevc: false, tenBit: false, args: ["-c:v", "libx264", "-flags", "-global_header", "-x264-params", "keyint=10:bframes=2"], inBand: true),
        Source(name: "x265.mkv", hevc: true, tenBit: false, args: ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=25:bframes=4"]),
        Source(name: "x265-main10.mp4", hevc: true, tenBit: true,
               args: ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-profile:v", "main10", "-tag:v", "hvc1",
                      "-x265-params", "log-level=error:keyint=25:bframes=3"]),
    ]
    static let (width, height, x, y) = (160, 120, 40, 20)
    static let frames = 50

    static func make(_ source: Source, in folder: TemporaryFolder) throws -> URL {
        let file = folder.file(source.name)
        let input = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "\(frames)"]
        let made = try TestSupport.tool("ffmpeg", input + source.args + ["-y", file.path])
        try #require(made.status == 0, "\(made.stderr)")
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", file.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        return file
    }

    static func document(_ movie: URL) -> String { movie.deletingPathExtension().appendingPathExtension("slowpoke").path }

    /// `ffmpeg -f framemd5` rows' last two columns (size and MD5).
    static func framemd5(_ arguments: [String]) throws -> [String] {
        let run = try TestSupport.tool("ffmpeg", ["-v", "error"] + arguments + ["-f", "framemd5", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").suffix(2).joined(separator: ",") }
    }

    @Test(arguments: sources.map(\.name)) func cropsWithoutReencoding(name: String) throws {
        let folder = try TemporaryFolder("passthrough-crop")
        let source = try #require(Self.sources.first { $0.name == name })
        let file = try Self.make(source, in: folder)
        let ext = file.pathExtension, out = folder.file("cropped.\(ext)"), remux = folder.file("remux.\(ext)")
        let crop = "\(Self.width):\(Self.height):\(Self.x):\(Self.y)"
        let dry = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "--crop", crop, "--dry-run", "-o", out.path])
        #expect(dry.status == 0 && dry.stdout.contains("cropped to 160x120 at 40,20 by the stream's cropping window, nothing re-encoded for it"), "\(dry.stdout)\(dry.stderr)")
        var start = Date()
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "--crop", crop, "-o", out.path])
        let cropSeconds = Date().timeIntervalSince(start)
        try #require(export.status == 0, "\(export.stderr)")
        start = Date()
        let plain = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "-o", remux.path])
        try #require(plain.status == 0, "\(plain.stderr)")
        print("\(name): crop \(String(format: "%.3f", cropSeconds)) s, remux \(String(format: "%.3f", Date().timeIntervalSince(start))) s")

        // The display size, and the sample aspect ratio kept.
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,sample_aspect_ratio",
                                                     "-of", "csv=p=0", out.path])
        let sar = name.contains("pyramid") ? "4:3" : "1:1"
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("160,120"), "\(probe.stdout)")
        #expect(!name.hasSuffix("mp4") || probe.stdout.contains(sar), "\(probe.stdout)")

        // Every packet copied: its slices (parameter sets left out) are the source's.
        let sets = source.hevc ? "32|33|34" : "7|8"
        let packets = { (f: URL) in try Self.framemd5(["-i", f.path, "-map", "0:v", "-c", "copy", "-bsf:v", "filter_units=remove_types=\(sets)"]) }
        let (copied, original) = (try packets(out), try packets(file))
        #expect(copied.count == Self.frames && copied == original)
        if source.inBand {
            // The in-band SPS was rewritten: whole packets differ where they carry one.
            let whole = { (f: URL) in try Self.framemd5(["-i", f.path, "-map", "0:v", "-c", "copy"]) }
            #expect(zip(try whole(out), try whole(file)).count { $0 != $1 } >= 5)
        }

        // Decoded pictures: the source's, cropped.
        let pixels = source.tenBit ? "yuv420p10le" : "yuv420p"
        let decoded = try Self.framemd5(["-flags", "unaligned", "-i", out.path, "-map", "0:v", "-fps_mode", "passthrough", "-pix_fmt", pixels])
        let expected = try Self.framemd5(["-i", file.path, "-map", "0:v", "-fps_mode", "passthrough", "-vf", "crop=\(crop)", "-pix_fmt", pixels])
        #expect(decoded.count == Self.frames && decoded == expected)

        // A second decoder: its pictures of the output are its pictures of the source, cropped
        // (OpenH264's pictures of x264's B-pyramids differ a little from FFmpeg's even uncropped).
        let frameBytes = Self.width * Self.height * 3 / 2 * (source.tenBit ? 2 : 1)
        let decoder = source.hevc ? nil : try SmartCutTests.buildOpenH264(in: folder)
        let second = { (f: URL, bytes: Int) in
            try decoder.map { try SmartCutTests.openH264(f, frameBytes: bytes, decoder: $0, in: folder) }
                ?? HEVCSmartCutTests.libde265(f, frameBytes: bytes, in: folder)
        }
        let whole = try second(file, 320 * 240 * 3 / 2 * (source.tenBit ? 2 : 1))
        let full = folder.file("second-full.yuv"), raw = folder.file("second-cropped.yuv")
        // libde265 1.0.11 (Debian 12) moves its output's start by the conformance window's
        // offsets in bytes, not samples: 16-bit pictures come out from half the offsets (the
        // window's size is right; FFmpeg, checked above, places it right).
        let halved = source.hevc && source.tenBit
        let secondCrop = "\(Self.width):\(Self.height):\(halved ? Self.x / 2 : Self.x):\(halved ? Self.y / 2 : Self.y)"
        try whole.frames.reduce(Data(), +).write(to: full)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-s", "320x240", "-pix_fmt", pixels, "-i", full.path,
                                                   "-vf", "crop=\(secondCrop)", "-f", "rawvideo", "-pix_fmt", pixels, "-y", raw.path])
        try #require(made.status == 0 && whole.errors.isEmpty && whole.frames.count == Self.frames, "\(made.stderr)\(whole.errors)")
        let pictures = HEVCSmartCutTests.split(try Data(contentsOf: raw), frameBytes: frameBytes)
        let cropped = try second(out, frameBytes)
        #expect(cropped.errors.isEmpty, "\(cropped.errors)")
        #expect(cropped.frames.count == Self.frames && cropped.frames == pictures, "\(name): \(cropped.frames.count) pictures")
    }

    /// A zoom by 3 takes the middle 106x80 of 320x240, whose centred left edge (107) moves
    /// onto the chroma grid (106).
    @Test func zoomCropsTheMiddle() throws {
        let folder = try TemporaryFolder("passthrough-zoom")
        let file = try Self.make(Self.sources[0], in: folder)
        let out = folder.file("zoomed.mp4")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "--zoom", "3", "-o", out.path])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("zoomed 3x (the middle 106x80 at 106,80, which players scale) by the stream's cropping window, nothing re-encoded for it"), "\(export.stdout)")
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", out.path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "106,80")
        let decoded = try Self.framemd5(["-flags", "unaligned", "-i", out.path, "-map", "0:v", "-fps_mode", "passthrough"])
        let expected = try Self.framemd5(["-i", file.path, "-map", "0:v", "-fps_mode", "passthrough", "-vf", "crop=106:80:106:80"])
        #expect(decoded.count == Self.frames && decoded == expected)
    }

    @Test func refusalsComeBeforeAnyWork() throws {
        let folder = try TemporaryFolder("passthrough-crop-refused")
        let file = try Self.make(Self.sources[2], in: folder)
        let out = folder.file("out.mkv")
        let odd = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "--crop", "160:120:41:20", "-o", out.path])
        #expect(odd.status == 1 && odd.stderr.contains("x265.mkv cannot be cropped without re-encoding: the crop's left edge (41) is not a multiple of 2, the grid the stream's chroma samples allow a cropping window on (export with --fps to crop by re-encoding)"), "\(odd.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try folder.listing().sorted() == ["x265.mkv", "x265.slowpoke"])
    }

    /// A frame-exact cut re-encodes the frames from the cut to the next keyframe; their in-band
    /// SPS (HEVC) or the record's SPS beside the stream's (H.264) get the same window: the
    /// cropped export's pictures are the uncropped export's, cropped (FFmpeg and the second
    /// decoder), and every packet's slices are the uncropped export's.
    @Test(arguments: [0, 2]) func smartCutsCarryTheCrop(source index: Int) throws {
        let folder = try TemporaryFolder("passthrough-crop-cut")
        let source = Self.sources[index]
        let file = try Self.make(source, in: folder)
        let removed = try TestSupport.run(TestSupport.slowpoke, ["remove", Self.document(file), "--range", "0.52-0.8"])
        try #require(removed.status == 0, "\(removed.stderr)")
        let ext = file.pathExtension, out = folder.file("cropped.\(ext)"), whole = folder.file("whole.\(ext)")
        let crop = "\(Self.width):\(Self.height):\(Self.x):\(Self.y)"
        for (target, flags) in [(out, ["--crop", crop]), (whole, [])] {
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", Self.document(file), "--exact", "-o", target.path] + flags)
            try #require(export.status == 0 && export.stdout.contains("re-encoded"), "\(export.stdout)\(export.stderr)")
        }
        let decoded = try Self.framemd5(["-flags", "unaligned", "-i", out.path, "-map", "0:v", "-fps_mode", "passthrough"])
        let expected = try Self.framemd5(["-i", whole.path, "-map", "0:v", "-fps_mode", "passthrough", "-vf", "crop=\(crop)"])
        #expect(decoded.count >= 40 && decoded == expected, "\(decoded.count) frames")
        let sets = source.hevc ? "32|33|34" : "7|8"
        let packets = { (f: URL) in try Self.framemd5(["-i", f.path, "-map", "0:v", "-c", "copy", "-bsf:v", "filter_units=remove_types=\(sets)"]) }
        #expect(try packets(out) == packets(whole))
        let frameBytes = Self.width * Self.height * 3 / 2
        let second = { (f: URL, bytes: Int) in
            try source.hevc ? HEVCSmartCutTests.libde265(f, frameBytes: bytes, in: folder)
                : SmartCutTests.openH264(f, frameBytes: bytes, decoder: SmartCutTests.buildOpenH264(in: folder), in: folder)
        }
        let full = try second(whole, 320 * 240 * 3 / 2), fullFile = folder.file("full.yuv"), raw = folder.file("cropped.yuv")
        try full.frames.reduce(Data(), +).write(to: fullFile)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-s", "320x240", "-pix_fmt", "yuv420p", "-i", fullFile.path,
                                                   "-vf", "crop=\(crop)", "-f", "rawvideo", "-y", raw.path])
        try #require(made.status == 0 && full.errors.isEmpty, "\(made.stderr)\(full.errors)")
        let cropped = try second(out, frameBytes)
        #expect(cropped.errors.isEmpty && cropped.frames.count == decoded.count, "\(cropped.errors)")
        #expect(cropped.frames == HEVCSmartCutTests.split(try Data(contentsOf: raw), frameBytes: frameBytes))
    }
}
