import Foundation
import TestSupport
import Testing

/// A source movie of the cross-feature oracle, drawn from a seed: H.264 (8-bit, or 10-bit High
/// 10) or HEVC (8- or 10-bit), closed or open GOPs or intra-only, B-frames (a pyramid at 3),
/// CAVLC, several slices, in mp4, mov or mkv, 24-60 fps, AAC, Opus (mkv) or PCM (mov, mkv),
/// 2-4 s of `testsrc2` at 160x120 to 320x240, with a 20 ms 1 kHz beep at each whole second
/// over silence.
///
/// A case's seed picks one of ``shapeCount`` shapes (its top byte), so a run of 60 cases makes
/// about 25 movies and replaying a seed makes the same one. Shape 0 is the clip of the known
/// fitted-cut defect (24 fps, 3 s, keyint 15, no B-frames, AAC in mp4); shapes 1-23 are drawn
/// at random; shapes from 24 on are the camera and broadcast shapes of ``Kind`` (OracleShapes.swift).
struct OracleSource: Sendable, Hashable {
    enum Codec: String, Sendable { case h264, hevc }
    enum GOP: String, Sendable { case closed, open, intra }

    static let shapeCount: UInt64 = 32
    static let randomShapes = 24

    var shape: Int
    var kind = Kind.drawn
    var codec = Codec.h264
    var tenBit = false
    var gop = GOP.closed
    var keyint = 15
    var bframes = 0
    var cavlc = false
    var slices = false
    var container = "mp4"
    var fps = 24
    var audio = "aac"
    var seconds = 3
    var width = 192
    var height = 128
    /// More of the encoder's parameters (x264's or x265's), for the special shapes.
    var codecParams = ""

    init(seed: UInt64) {
        shape = Int((seed >> 56) % Self.shapeCount)
        guard shape != 0 else { return }
        if shape >= Self.randomShapes {
            self = Self.special(shape: shape, hdr10Plus: (seed >> 48) & 1 == 1)
            return
        }
        var g = SplitMix64(state: 0x0DAC_1E50 &+ UInt64(shape) &* 0x9E37_79B9)
        codec = Int.random(in: 0..<3, using: &g) == 0 ? .hevc : .h264
        tenBit = Int.random(in: 0..<3, using: &g) == 0
        gop = [.closed, .closed, .open, .intra][Int.random(in: 0..<4, using: &g)]
        keyint = gop == .intra ? 1 : [8, 12, 15, 24, 30][Int.random(in: 0..<5, using: &g)]
        bframes = gop == .intra ? 0 : [0, 2, 3][Int.random(in: 0..<3, using: &g)]
        cavlc = codec == .h264 && Int.random(in: 0..<4, using: &g) == 0
        slices = codec == .h264 && Int.random(in: 0..<4, using: &g) == 0
        container = ["mp4", "mov", "mkv"][Int.random(in: 0..<3, using: &g)]
        fps = [24, 25, 30, 48, 50, 60][Int.random(in: 0..<6, using: &g)]
        let audios = container == "mp4" ? ["aac"] : container == "mkv" ? ["aac", "opus", "pcm"] : ["aac", "pcm"]
        audio = audios[Int.random(in: 0..<audios.count, using: &g)]
        seconds = Int.random(in: 2...4, using: &g)
        (width, height) = [(160, 120), (192, 128), (240, 160), (320, 240)][Int.random(in: 0..<4, using: &g)]
    }

    var pixelFormat: String { tenBit ? "yuv420p10le" : "yuv420p" }
    /// Whether passthrough can re-encode this video at a cut (8/10-bit 4:2:0 H.264 in Baseline,
    /// Main, High or High 10; HEVC Main or Main 10), and so renders freezes and gaps as stills
    /// (docs/export.md); otherwise the plan says the frame before a gap stays on screen. The
    /// encoders mark all-intra streams with intra profiles slowpoke does not re-encode: x264's
    /// 10-bit ones High 10 Intra, x265's range extensions.
    var reencodesStills: Bool { gop != .intra || (codec == .h264 && !tenBit) }
    var frameBytes: Int { width * height * 3 / 2 * (tenBit ? 2 : 1) }

    /// A file name that says what the movie is.
    var name: String {
        let bits = tenBit ? "10bit" : "8bit"
        let coding = (cavlc ? "-cavlc" : "") + (slices ? "-slices4" : "")
        return "s\(shape)\(kind == .drawn ? "" : "-" + kind.rawValue)-\(codec.rawValue)-\(bits)-\(gop.rawValue)-k\(keyint)-b\(bframes)\(coding)-\(fps)fps-\(audio)-\(seconds)s-\(width)x\(height).\(container)"
    }

    var videoArguments: [String] {
        switch codec {
        case .h264:
            var params = "keyint=\(keyint):min-keyint=\(keyint):scenecut=0:bframes=\(bframes)"
            if bframes >= 3 { params += ":b-pyramid=normal" }
            if gop == .open { params += ":open-gop=1" }
            if cavlc { params += ":cabac=0" }
            if slices { params += ":slices=4" }
            params += codecParams
            return ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", pixelFormat]
                + (tenBit ? ["-profile:v", "high10"] : []) + ["-x264-params", params]
        case .hevc:
            let params = "log-level=error:keyint=\(keyint):min-keyint=\(keyint):scenecut=0:bframes=\(bframes):open-gop=\(gop == .open ? 1 : 0)" + codecParams
            return ["-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", pixelFormat]
                + (tenBit ? ["-profile:v", "main10"] : []) + (container == "mkv" ? [] : ["-tag:v", "hvc1"]) + ["-x265-params", params]
        }
    }

    var audioArguments: [String] {
        switch audio {
        case "opus": ["-c:a", "libopus", "-b:a", "96k"]
        case "pcm": ["-c:a", "pcm_s16le"]
        case "mp2": ["-c:a", "mp2", "-b:a", "128k"]
        default: ["-c:a", "aac", "-b:a", "128k"]
        }
    }

    /// The sound: a 20 ms 1 kHz beep at each whole second over silence.
    var beeps: String { "aevalsrc=0.8*sin(2*PI*1000*t)*lt(mod(t\\,1)\\,0.02):s=48000:d=\(seconds)" }

    /// Makes the movie in `folder`.
    func make(in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent(name)
        if kind == .hdr10plus { return try makeHDR10Plus(file, in: folder) }
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps):duration=\(seconds)",
                                                   "-f", "lavfi", "-i", beeps] + secondProgramInputs + videoArguments + audioArguments
                                        + ["-ac", "1"] + kindArguments + ["-y", file.path])
        guard made.status == 0 else { throw OracleFailure("making \(name): \(made.stderr)") }
        return file
    }
}

extension OracleSource {
    /// The HDR10+ shape: x265's raw stream, an ST 2094-40 SEI put before each picture by
    /// HDR10PlusTests' script (targeted luminance 100 + the picture's index), muxed with the beeps.
    func makeHDR10Plus(_ file: URL, in folder: URL) throws -> URL {
        let raw = folder.appendingPathComponent("\(name).plain.hevc"), marked = folder.appendingPathComponent("\(name).marked.hevc")
        let script = folder.appendingPathComponent("hdr10plus.py")
        defer { for f in [raw, marked] { try? FileManager.default.removeItem(at: f) } }
        let encoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps):duration=\(seconds)"]
                                           + videoArguments.filter { $0 != "-tag:v" && $0 != "hvc1" } + ["-f", "hevc", "-y", raw.path])
        guard encoded.status == 0 else { throw OracleFailure("making \(name): \(encoded.stderr)") }
        try HDR10PlusTests.script.write(to: script, atomically: true, encoding: .utf8)
        let marking = try TestSupport.tool("python3", [script.path, raw.path, marked.path])
        guard marking.status == 0 else { throw OracleFailure("marking \(name): \(marking.stderr)") }
        let muxed = try TestSupport.tool("ffmpeg", ["-v", "error", "-r", "\(fps)", "-i", marked.path, "-f", "lavfi", "-i", beeps,
                                                    "-c:v", "copy", "-tag:v", "hvc1"] + audioArguments + ["-ac", "1", "-y", file.path])
        guard muxed.status == 0 else { throw OracleFailure("muxing \(name): \(muxed.stderr)") }
        return file
    }
}

struct OracleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the oracle knows of a source movie, established once by ffmpeg and ffprobe.
final class OracleSourceFacts: @unchecked Sendable {
    // @unchecked: the lazily filled pictures are read and written under `lock`; the rest is constant.
    private let lock = NSLock()
    let source: OracleSource
    let movie: URL
    /// Each frame's MD5, in presentation order, as ffmpeg decodes it.
    let md5s: [String]
    /// Each frame's presentation time, seconds, from the video stream's start.
    let times: [Double]
    /// The first frame's index of each MD5.
    let index: [String: Int]
    /// Where the beeps start, seconds from the first picture (``OracleDecode/beeps(_:)``).
    let beeps: [Double]
    /// Their attacks (``OracleDecode/attacks(_:onsets:)``).
    let attacks: [Double]
    private var cachedPictures: [Data]?
    private var cachedOpenH264: Set<Int>?

    init(_ source: OracleSource, in folder: URL) throws {
        self.source = source
        movie = try source.make(in: folder)
        let decoded = try TestSupport.frameMD5s(movie)
        guard decoded.errors.isEmpty else { throw OracleFailure("\(source.name) does not decode cleanly: \(decoded.errors)") }
        md5s = decoded.md5s
        times = try Self.presentationTimes(movie)
        guard times.count == md5s.count else { throw OracleFailure("\(source.name): \(times.count) frame times for \(md5s.count) frames") }
        var index: [String: Int] = [:]
        for (i, md5) in md5s.enumerated() where index[md5] == nil { index[md5] = i }
        self.index = index
        let measured = try OracleDecode.beeps(movie)
        (beeps, attacks) = (measured.onsets, measured.attacks)
        guard beeps.count == source.seconds else { throw OracleFailure("\(source.name): \(beeps.count) beeps heard, \(source.seconds) made: \(beeps)") }
    }

    /// The video frames' presentation times, sorted, less the first (the timeline's zero):
    /// ticks of the stream's time base (ffprobe's `_time` fields have six decimals only). One
    /// ffprobe run lists both: the frames' lines (a number, or N/A), then the stream's time
    /// base (`1/15360`).
    static func presentationTimes(_ movie: URL) throws -> [Double] {
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp:stream=time_base",
                                                     "-of", "csv=p=0", movie.path])
        let lines = probe.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", \r")) }
        let base = lines.last { $0.range(of: #"^[0-9]+/[0-9]+$"#, options: .regularExpression) != nil } ?? ""
        let parts = base.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] > 0 else { throw OracleFailure("\(movie.lastPathComponent): time base \(base)") }
        let ticks = lines.compactMap { Int64($0) }.sorted()
        guard let first = ticks.first else { return [] }
        return ticks.map { Double($0 - first) * parts[0] / parts[1] }
    }

    /// Every source picture, raw in the source's pixel format.
    func pictures(in folder: TemporaryFolder) throws -> [Data] {
        try lock.withLock {
            if let cachedPictures { return cachedPictures }
            let decoded = try OracleDecode.pictures(movie, source, in: folder)
            cachedPictures = decoded.frames
            return decoded.frames
        }
    }

    /// The hashes of OpenH264's pictures of the source (8-bit H.264 only).
    func openH264Pictures(decoder: URL, in folder: TemporaryFolder) throws -> Set<Int> {
        try lock.withLock {
            if let cachedOpenH264 { return cachedOpenH264 }
            let decoded = Set(try OracleDecode.openH264(movie, source, decoder: decoder, in: folder).frames.map(\.hashValue))
            cachedOpenH264 = decoded
            return decoded
        }
    }
}

/// The sources of one run, each made once.
final class OracleSourceCache: @unchecked Sendable {
    // @unchecked: `facts` is read and written under `lock` (a source is made under it too, so
    // two cases never make the same one).
    let folder: TemporaryFolder
    private let lock = NSLock()
    private var facts: [OracleSource: OracleSourceFacts] = [:]

    init() throws { folder = try TemporaryFolder("oracle-sources") }

    /// The names of the sources made so far.
    var names: [String] { lock.withLock { facts.keys.map(\.name).sorted() } }

    func facts(_ source: OracleSource) throws -> OracleSourceFacts {
        try lock.withLock {
            if let known = facts[source] { return known }
            let made = try OracleSourceFacts(source, in: folder.url)
            facts[source] = made
            return made
        }
    }
}
