import Foundation
import Testing
import TestSupport

/// HDR10+ (SMPTE ST 2094-40) through re-encoding (issue 51): every re-encoded frame carries the
/// dynamic metadata of the source frame it shows (a blend the nearer one's), at frame-exact cuts
/// and in `--fps`; `info`'s plan is the export's; an H.264 `--fps` says it drops HDR10+.
///
/// Debian's x265 is built without HDR10+ (`dhdr10-info` is ignored), so the source is made here:
/// x265 encodes PQ video without B-frames (decode order is presentation order), and a small
/// script puts a prefix SEI before each picture's first slice whose targeted display luminance
/// is 100 + the frame's index, read back with ffprobe's frame side data.
@Suite struct HDR10PlusTests {
    static let script = #"""
    import sys
    def payload(v):
        bits = []
        def put(value, n):
            for k in reversed(range(n)): bits.append((value >> k) & 1)
        put(1, 8); put(1, 2)            # application_version, num_windows
        put(100 + v, 27); put(0, 1)     # targeted_system_display_maximum_luminance, no actual peak
        for _ in range(3): put(5000, 17)  # maxscl
        put(1000 + v, 17); put(0, 4); put(0, 10)  # average_maxrgb, no percentiles, fraction_bright_pixels
        put(0, 1); put(0, 1); put(0, 1)  # no mastering peak, tone mapping or saturation mapping
        while len(bits) % 8: bits.append(0)
        body = bytes(int(''.join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
        return bytes([0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]) + body
    def escaped(rbsp):
        out, zeros = bytearray(), 0
        for b in rbsp:
            if zeros >= 2 and b <= 3: out.append(3); zeros = 0
            out.append(b); zeros = zeros + 1 if b == 0 else 0
        return bytes(out)
    def sei(v):
        p = payload(v)
        return bytes([0x4E, 0x01]) + escaped(bytes([4, len(p)]) + p + b'\x80')
    data = open(sys.argv[1], 'rb').read()
    starts, i = [], 0
    while i + 2 < len(data):
        if data[i] == 0 and data[i + 1] == 0 and data[i + 2] == 1:
            starts.append((i - 1 if i > 0 and data[i - 1] == 0 else i, i + 3)); i += 3
        else: i += 1
    units = [data[s[1]:(starts[k + 1][0] if k + 1 < len(starts) else len(data))] for k, s in enumerate(starts)]
    out, frame, inserted = bytearray(), 0, False
    for u in units:
        t = (u[0] >> 1) & 0x3F
        if t == 35: inserted = False
        if (t <= 9 or 16 <= t <= 21) and not inserted:
            out += b'\x00\x00\x00\x01' + sei(frame); frame += 1; inserted = True
        out += b'\x00\x00\x00\x01' + u
    open(sys.argv[2], 'wb').write(out)
    """#

    /// A 2 s 50 fps HDR10 + HDR10+ HEVC movie (GOPs of 25), with AAC audio unless `audio` is false.
    func hdr10PlusMovie(_ folder: TemporaryFolder, audio: Bool = true) throws -> URL {
        let raw = folder.file("plain.hevc"), marked = folder.file("marked.hevc"), movie = folder.file("hdr10plus.mp4")
        let encoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=50:d=2", "-vf", "format=yuv420p10le",
                                                      "-c:v", "libx265", "-preset", "ultrafast",
                                                      "-x265-params", "log-level=error:aud=1:bframes=0:keyint=25:min-keyint=25:scenecut=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=\(HDRReencodeTests.masterDisplay):max-cll=1000,400",
                                                      "-f", "hevc", raw.path])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        try Self.script.write(to: folder.file("hdr10plus.py"), atomically: true, encoding: .utf8)
        let marking = try TestSupport.tool("python3", [folder.file("hdr10plus.py").path, raw.path, marked.path])
        #expect(marking.status == 0, "\(marking.stderr)")
        let sound = audio ? ["-f", "lavfi", "-i", "sine=r=48000:d=2", "-c:a", "aac", "-shortest"] : []
        let muxed = try TestSupport.tool("ffmpeg", ["-v", "error", "-r", "50", "-i", marked.path] + sound + ["-c:v", "copy", "-tag:v", "hvc1", movie.path])
        #expect(muxed.status == 0, "\(muxed.stderr)")
        return movie
    }

    /// Each frame's HDR10+ mark (the source frame index it was made for), nil without HDR10+.
    static func marks(_ file: URL) throws -> [Int?] {
        let frames = try TestSupport.ffprobe(file, ["-select_streams", "v", "-show_frames", "-show_entries", "frame=side_data_list"])["frames"] as? [[String: Any]] ?? []
        return frames.map { frame in
            let side = frame["side_data_list"] as? [[String: Any]] ?? []
            guard let plus = side.first(where: { ($0["side_data_type"] as? String)?.contains("2094-40") == true }),
                  let luminance = plus["targeted_system_display_maximum_luminance"] as? String,
                  let value = Int(luminance.split(separator: "/").first ?? "") else { return nil }
            return value - 100
        }
    }

    func run(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// A cut inside a GOP: info's plan (frames, re-encoded count, warnings) is what export writes
    /// and says, and every frame, copied or re-encoded, carries its source frame's HDR10+.
    @Test(arguments: [["remove", "--range", "0.3-0.62"], ["remove", "--range", "1.13-1.37"]])
    func frameExactCutCarriesHDR10Plus(edit: [String]) throws {
        let folder = try TemporaryFolder("hdr10plus-cut")
        let movie = try hdr10PlusMovie(folder)
        #expect(try Self.marks(movie) == (0..<100).map { $0 })
        #expect(try run(["open", movie.lastPathComponent], in: folder).status == 0)
        #expect(try run(edit, in: folder).status == 0)
        let info = try run(["info", "--json", "--frames"], in: folder)
        let plan = try #require((try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])?["exportPlan"] as? [String: Any])
        let planned = plan["frames"] as? [[String: Any]] ?? []
        let reencoded = plan["reencodedFrames"] as? Int ?? -1
        #expect(reencoded >= 5, "\(plan)")
        let export = try run(["export", "--progress", "none", "-o", "out.mp4"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("\(reencoded) frames re-encoded"), "\(export.stdout)")
        let warned = export.stderr.split(separator: "\n").map { String($0.dropFirst("slowpoke: warning: ".count)) }
        #expect(warned == plan["warnings"] as? [String], "export said \(warned)")
        // Each output frame's mark is the source frame the plan shows there (50 fps: time × 50).
        let expected = planned.compactMap { ($0["source"] as? String).flatMap(Double.init).map { Int(($0 * 50).rounded()) } }
        let marks = try Self.marks(folder.file("out.mp4"))
        #expect(expected.count == planned.count && expected.count >= 80)
        #expect(marks.count == expected.count && marks == expected.map { Optional($0) },
                "\(zip(marks, expected).filter { $0.0 != $0.1 }.count) of \(marks.count) frames differ; \(marks)")
        let clean = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        // A second decoder: libde265 (single thread) gives FFmpeg's pictures, the SEI spliced
        // into the re-encoded access units and the rewritten parameter-set ids included.
        try #require(FileManager.default.isExecutableFile(atPath: HEVCSmartCutTests.dec265.path), "libde265's dec265 is not installed")
        let frameBytes = 320 * 180 * 3 / 2 * 2
        let second = try HEVCSmartCutTests.libde265(folder.file("out.mp4"), frameBytes: frameBytes, in: folder)
        let raw = folder.file("ffmpeg.yuv")
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("out.mp4").path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                      "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-y", raw.path])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let first = HEVCSmartCutTests.split(try Data(contentsOf: raw), frameBytes: frameBytes)
        #expect(second.errors.isEmpty, "libde265 says \(second.errors)")
        #expect(first.count == marks.count && second.frames.count == first.count, "libde265 \(second.frames.count) pictures, ffmpeg \(first.count)")
        let differ = zip(first, second.frames).filter { $0 != $1 }.count
        #expect(differ == 0, "\(differ) of \(first.count) libde265 pictures differ from ffmpeg's")
    }

    /// `--fps 25` with blended or interpolated frames over a range slowed to 0.25x: each frame
    /// carries the nearer source frame's HDR10+; an H.264 export says before any work that it drops it.
    @Test(arguments: ["blend", "interpolate"])
    func constantRateCarriesHDR10Plus(frames: String) throws {
        let folder = try TemporaryFolder("hdr10plus-fps")
        // Without audio, so the timeline is not fitted to audio frames and the times below hold.
        let movie = try hdr10PlusMovie(folder, audio: false)
        for edit in [["open", movie.lastPathComponent], ["scale", "--range", "0.5-1", "--rate", "0.25"]] {
            #expect(try run(edit, in: folder).status == 0)
        }
        let export = try run(["export", "--fps", "25", "--codec", "hevc", "--preset", "ultrafast", "--frames", frames,
                              "--progress", "none", "-o", "out.mp4"], in: folder)
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export.stderr)")
        // Output frame k at k/25 s shows source time s: 1x before 0.5 s, 0.25x to 2.5 s, 1x after.
        let expected: [Int] = (0..<88).map { k in
            let t = Double(k) / 25
            let s = t < 0.5 ? t : t < 2.5 ? 0.5 + (t - 0.5) / 4 : t - 1.5
            return Int((s * 50).rounded())
        }
        let marks = try Self.marks(folder.file("out.mp4"))
        #expect(marks.count == 88 && marks == expected.map { Optional($0) },
                "\(zip(marks, expected).filter { $0.0 != $0.1 }.count) of \(marks.count) frames differ; \(marks)")

        let h264 = try run(["export", "--fps", "25", "--preset", "ultrafast", "--progress", "none", "-o", "sdr.mp4"], in: folder)
        #expect(h264.status == 0)
        #expect(h264.stderr.contains("hdr10plus.mp4's video carries HDR10+ dynamic metadata (SMPTE ST 2094-40), which H.264 here does not: sdr.mp4 drops it (--codec hevc keeps it)"), "\(h264.stderr)")
    }

    /// `--fps`-only warnings (issue 51): an H.264 `--fps` export of PQ HDR10+ video says before
    /// any work that it is 8-bit and drops HDR10+, and `export --dry-run` with the same options
    /// says the same lines and writes nothing; with `--codec hevc` neither says anything.
    @Test func dryRunSaysTheConstantRateWarnings() throws {
        let folder = try TemporaryFolder("hdr10plus-dry-run")
        let movie = try hdr10PlusMovie(folder, audio: false)
        for edit in [["open", movie.lastPathComponent], ["scale", "--range", "0.5-1", "--rate", "0.5"]] {
            #expect(try run(edit, in: folder).status == 0)
        }
        let options = ["--fps", "25", "--preset", "ultrafast", "--progress", "none", "-o", "sdr.mp4"]
        let dry = try run(["export", "--dry-run"] + options, in: folder)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("sdr.mp4").path))
        #expect(dry.stdout.hasPrefix("would write sdr.mp4: 25 fps, "), "\(dry.stdout)")
        let said = dry.stderr.split(separator: "\n").map(String.init)
        #expect(said.count == 3, "\(said)")
        #expect(said.contains("slowpoke: warning: hdr10plus.mp4's video carries HDR10+ dynamic metadata (SMPTE ST 2094-40), which H.264 here does not: sdr.mp4 drops it (--codec hevc keeps it)"), "\(said)")
        #expect(said.contains { $0.hasPrefix("slowpoke: warning: hdr10plus.mp4's video is HDR (PQ), and H.264 here is 8-bit") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("slowpoke: warning: hdr10plus.mp4's video is 10-bit") }, "\(said)")
        // The export says exactly these, first.
        let export = try run(["export"] + options, in: folder)
        #expect(export.status == 0)
        #expect(Array(export.stderr.split(separator: "\n").map(String.init).prefix(said.count)) == said, "\(export.stderr)")
        let hevc = try run(["export", "--dry-run", "--codec", "hevc"] + options, in: folder)
        #expect(hevc.status == 0 && hevc.stderr.isEmpty, "\(hevc.stderr)")
        #expect(hevc.stdout.contains("hevc main10"), "\(hevc.stdout)")
    }

    /// A reversed range in `--fps`: its frames carry their messages last first, as they show.
    @Test func reversedRangeCarriesHDR10Plus() throws {
        let folder = try TemporaryFolder("hdr10plus-reverse")
        let movie = try hdr10PlusMovie(folder, audio: false)
        for edit in [["open", movie.lastPathComponent], ["reverse", "--range", "1-1.5"]] {
            #expect(try run(edit, in: folder).status == 0)
        }
        let export = try run(["export", "--fps", "25", "--codec", "hevc", "--preset", "ultrafast", "--progress", "none", "-o", "out.mp4"], in: folder)
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export.stderr)")
        // 25 fps shows every other 50 fps frame: 0, 2 … 48, then 1.5 s back to 1 s (74 … 50), then 76 … 98.
        let expected = (0..<25).map { 2 * $0 } + (0..<13).map { 74 - 2 * $0 } + (0..<12).map { 76 + 2 * $0 }
        let marks = try Self.marks(folder.file("out.mp4"))
        #expect(marks.count == 50 && marks == expected.map { Optional($0) }, "\(marks)")
    }
}
