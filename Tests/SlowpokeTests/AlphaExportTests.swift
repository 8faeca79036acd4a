import Foundation
import Testing
import TestSupport

/// `export --fps` of sources with an alpha channel and of 10-bit sources (issue 36 item 6):
/// ProRes 4444 and VP9 with alpha keep their alpha plane in .mov and .webm/.mkv, an .mp4 says
/// it drops it, bit depth lost is said, and a codec a container cannot hold is refused before
/// any work. Every output is checked with ffprobe and ffmpeg (its alpha plane decoded with
/// `alphaextract`, VP9's with libvpx, the only decoder here that reads it).
@Suite struct AlphaExportTests {
    func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// 2 s of 160x120 30 fps testsrc2 whose alpha rises from 0 at the left edge to full at the
    /// right, encoded with `codec` into `name`, opened, and 0.5-1.0 s slowed to 0.5x.
    func alphaMovie(_ folder: TemporaryFolder, name: String, pixelFormat: String, codec: [String]) throws {
        let depth = pixelFormat.contains("10") ? 1023 : 255
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
            "testsrc2=s=160x120:r=30:d=2,format=\(pixelFormat),geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='X*\(depth)/W'"]
            + codec + ["-pix_fmt", pixelFormat, "-y", folder.file(name).path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", name, in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "0.5-1.0", "--rate", "0.5", in: folder).status == 0)
    }

    func probe(_ file: URL, _ entries: String) throws -> String {
        try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", entries,
                                         "-of", "default=nw=1", file.path]).stdout
    }

    /// The decoded pixel format of `file`'s video as ffmpeg gives it (with `decoder` if set):
    /// its first frame copied raw into NUT, whose header ffprobe reads.
    func decodedPixelFormat(_ file: URL, decoder: [String] = [], in folder: TemporaryFolder) throws -> String {
        let raw = folder.file("decoded.nut")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + decoder + ["-i", file.path, "-frames:v", "1",
                                                   "-c:v", "rawvideo", "-an", "-y", raw.path])
        #expect(made.status == 0, "\(made.stderr)")
        return try probe(raw, "stream=pix_fmt").trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "pix_fmt=", with: "")
    }

    /// The alpha plane of frame 20 of `file` (8-bit, one byte a pixel), decoded by ffmpeg.
    func alphaPlane(_ file: URL, decoder: [String] = []) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error"] + decoder + ["-i", file.path, "-vf", "select=eq(n\\,20),alphaextract",
                             "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

    /// The alpha gradient survived: 160x120 samples, transparent on the left, opaque on the
    /// right, rising across the row.
    func expectGradient(_ alpha: [UInt8], _ label: String) {
        #expect(alpha.count == 160 * 120, "\(label): \(alpha.count) alpha samples")
        guard alpha.count == 160 * 120 else { return }
        let row = Array(alpha[60 * 160..<61 * 160])
        #expect(row[2] < 16 && row[157] > 240 && row[80] > 100 && row[80] < 156, "\(label): alpha row \(row[2]), \(row[80]), \(row[157])")
        #expect(alpha.contains { $0 < 128 }, "\(label): alpha is all opaque")
    }

    @Test func proresAlphaIsKeptInMov() throws {
        let folder = try TemporaryFolder("alpha-prores")
        try alphaMovie(folder, name: "clip.mov", pixelFormat: "yuva444p10le", codec: ["-c:v", "prores_ks", "-profile:v", "4"])
        let result = try slowpoke("export", "--fps", "30", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("clip-30fps.mov") && result.stdout.contains("prores 4444 yuva444p10le"),
                "\(result.stdout)\(result.stderr)")
        // ProRes 4444 decodes at 12 bits here; prores_ks writes 10: said, once, in one line.
        #expect(result.stderr == "slowpoke: warning: clip.mov's video is 12-bit, and ProRes 4444 here is written at 10 bits: clip-30fps.mov reduces it to 10-bit\n",
                "\(result.stderr)")
        let out = folder.file("clip-30fps.mov")
        let facts = try probe(out, "stream=codec_name,codec_tag_string,pix_fmt,nb_frames")
        #expect(facts.contains("codec_name=prores") && facts.contains("codec_tag_string=ap4h") && facts.contains("pix_fmt=yuva444p")
                && facts.contains("nb_frames=75"), "\(facts)")
        expectGradient(try alphaPlane(out), "prores")
    }

    /// FFmpeg 5.1's Matroska muxer takes ProRes (the mp4 one does not): --codec prores into
    /// .mkv keeps the alpha plane too.
    @Test func proresAlphaIsKeptInMatroska() throws {
        let folder = try TemporaryFolder("alpha-prores-mkv")
        try alphaMovie(folder, name: "clip.mov", pixelFormat: "yuva444p10le", codec: ["-c:v", "prores_ks", "-profile:v", "4"])
        let result = try slowpoke("export", "--fps", "30", "--codec", "prores", "-o", "out.mkv", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("prores 4444 yuva444p10le"), "\(result.stdout)\(result.stderr)")
        let out = folder.file("out.mkv")
        let facts = try probe(out, "stream=codec_name,pix_fmt")
        #expect(facts.contains("codec_name=prores") && facts.contains("pix_fmt=yuva444p"), "\(facts)")
        expectGradient(try alphaPlane(out), "prores in mkv")
    }

    @Test(arguments: ["nearest", "blend"])
    func vp9AlphaIsKeptInWebM(frames: String) throws {
        let folder = try TemporaryFolder("alpha-vp9")
        try alphaMovie(folder, name: "clip.webm", pixelFormat: "yuva420p",
                       codec: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"])
        let result = try slowpoke("export", "--fps", "30", "--frames", frames, "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("clip-30fps.webm") && result.stdout.contains("vp9 yuva420p")
                && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
        let out = folder.file("clip-30fps.webm")
        let facts = try probe(out, "stream=codec_name,nb_frames:stream_tags=alpha_mode")
        #expect(facts.contains("codec_name=vp9") && facts.lowercased().contains("alpha_mode=1"), "\(facts)")
        let libvpx = ["-c:v", "libvpx-vp9"]
        #expect(try decodedPixelFormat(out, decoder: libvpx, in: folder) == "yuva420p")
        expectGradient(try alphaPlane(out, decoder: libvpx), "vp9 \(frames)")
    }

    /// An .mp4 keeps H.264, which has no alpha: said in one line; the output is plain 4:2:0.
    /// Into .mkv, an explicit --codec h264 says the same, and no alpha tag claims otherwise.
    @Test func mp4SaysAlphaIsDropped() throws {
        let folder = try TemporaryFolder("alpha-mp4")
        try alphaMovie(folder, name: "clip.webm", pixelFormat: "yuva420p",
                       codec: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"])
        let result = try slowpoke("export", "--fps", "30", "-o", "out.mp4", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(result.status == 0 && result.stdout.contains("h264"), "\(result.stdout)\(result.stderr)")
        #expect(result.stderr == "slowpoke: warning: clip.webm's video has an alpha channel (transparency), which H.264 cannot keep: out.mp4 drops it (--codec prores into .mov or .mkv keeps it, or --codec vp9 into .webm or .mkv keeps it)\n",
                "\(result.stderr)")
        #expect(try decodedPixelFormat(folder.file("out.mp4"), in: folder) == "yuv420p")
        let mkv = try slowpoke("export", "--fps", "30", "--codec", "h264", "-o", "out.mkv", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(mkv.status == 0 && mkv.stderr.contains("out.mkv drops it"), "\(mkv.stderr)")
        let tags = try probe(folder.file("out.mkv"), "stream=codec_name:stream_tags=alpha_mode")
        #expect(tags.contains("codec_name=h264") && !tags.lowercased().contains("alpha_mode"), "\(tags)")
    }

    /// A 10-bit source into the default H.264 says it becomes 8-bit (naming HEVC, which keeps 10
    /// bits in .mp4), into VP9 in .webm too (nothing there keeps 10 bits); into HEVC nothing.
    @Test func tenBitToH264SaysBitDepthIsReduced() throws {
        let folder = try TemporaryFolder("alpha-10bit")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=2",
                                                   "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                                   "-pix_fmt", "yuv420p10le", "-color_trc", "arib-std-b67", "-color_primaries", "bt2020",
                                                   "-colorspace", "bt2020nc", "-y", folder.file("hlg.mp4").path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "hlg.mp4", in: folder).status == 0)
        let h264 = try slowpoke("export", "--fps", "30", "-o", "h264.mp4", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(h264.status == 0 && h264.stderr == "slowpoke: warning: hlg.mp4's video is 10-bit, and H.264 here is written at 8 bits: h264.mp4 reduces it to 8-bit (--codec hevc keeps 10 bits)\n",
                "\(h264.stderr)")
        #expect(try probe(folder.file("h264.mp4"), "stream=pix_fmt").contains("pix_fmt=yuv420p\n"))
        let vp9 = try slowpoke("export", "--fps", "30", "--codec", "vp9", "-o", "vp9.webm", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(vp9.status == 0 && vp9.stderr == "slowpoke: warning: hlg.mp4's video is 10-bit, and VP9 here is written at 8 bits: vp9.webm reduces it to 8-bit\n",
                "\(vp9.stderr)")
        let hevc = try slowpoke("export", "--fps", "30", "--codec", "hevc", "-o", "hevc.mp4", "--preset", "ultrafast", "--progress", "none", in: folder)
        #expect(hevc.status == 0 && hevc.stderr.isEmpty, "\(hevc.stderr)")
        #expect(try probe(folder.file("hevc.mp4"), "stream=pix_fmt").contains("pix_fmt=yuv420p10le"))
    }

    /// Refused before any work, naming what can: ProRes into .mp4 (FFmpeg 5.1's mp4 muxer has no
    /// tag for it), VP9 into .mov (mov takes VP9 only as mp4), H.264 into .webm.
    @Test(arguments: [("prores", "out.mp4", "export to .mov or .mkv, or --codec h264 or hevc into .mp4"),
                      ("vp9", "out.mov", "export to .webm or .mkv, or --codec h264 or hevc or prores into .mov"),
                      ("h264", "out.webm", ".webm holds only VP8, VP9 and AV1 video (export to .mp4 or .mov or .mkv, or --codec vp9 into .webm)")])
    func containersThatCannotHoldTheCodecAreRefused(codec: String, output: String, advice: String) throws {
        let folder = try TemporaryFolder("alpha-refused")
        try alphaMovie(folder, name: "clip.mov", pixelFormat: "yuva444p10le", codec: ["-c:v", "prores_ks", "-profile:v", "4"])
        let refused = try slowpoke("export", "--fps", "30", "--codec", codec, "-o", output, "--progress", "none", in: folder)
        #expect(refused.status != 0 && refused.stderr.contains(advice), "\(refused.stderr)")
        if codec == "prores" {
            // The default for this source in .mov is ProRes, which has no --crf: said, naming why.
            let crf = try slowpoke("export", "--fps", "30", "--crf", "18", "-o", "crf.mov", "--progress", "none", in: folder)
            #expect(crf.status != 0 && crf.stderr.contains("--crf and --preset do not apply to ProRes (chosen because the video has an alpha channel and the output is .mov), whose quality is ProRes 4444's own"),
                    "\(crf.stderr)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(left == ["clip.mov", "clip.slowpoke"], "\(left)")
    }
}
