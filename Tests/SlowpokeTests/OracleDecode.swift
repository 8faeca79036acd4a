import Foundation
import TestSupport

/// The oracle's independent readings of an output: ffmpeg's and the second decoders' pictures,
/// ffprobe's packets, the decoded audio's beeps, and what the export said it wrote.
enum OracleDecode {
    /// Every picture ffmpeg decodes from `file`, raw in the source's pixel format, with `-xerror`.
    static func pictures(_ file: URL, _ source: OracleSource, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let raw = folder.file("decoded-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                     "-f", "rawvideo", "-pix_fmt", source.pixelFormat, "-y", raw.path])
        let data = (try? Data(contentsOf: raw)) ?? Data()
        return (HEVCSmartCutTests.split(data, frameBytes: source.frameBytes), result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }

    /// OpenH264's pictures of `file` (8-bit H.264), through SmartCutTests' decoder.
    static func openH264(_ file: URL, _ source: OracleSource, decoder: URL, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        try SmartCutTests.openH264(file, frameBytes: source.frameBytes, decoder: decoder, in: folder)
    }

    /// libde265's pictures of `file` (HEVC), through HEVCSmartCutTests' Annex B reader.
    static func libde265(_ file: URL, _ source: OracleSource, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        try HEVCSmartCutTests.libde265(file, frameBytes: source.frameBytes, in: folder)
    }

    /// Every packet of every stream, as ffprobe lists it with its MD5 (not the file's bytes:
    /// Matroska writes a random SegmentUID).
    static func packets(_ file: URL) throws -> String {
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts,dts,duration,flags,data_hash",
                                                     "-show_data_hash", "md5", "-of", "csv=p=0", file.path])
        return probe.status == 0 ? probe.stdout : "ffprobe failed: \(probe.stderr)"
    }

    /// What an export's `wrote …` line says: the video frames, and the frames re-encoded at cuts
    /// and copied (0 and nil when it names none).
    struct Wrote {
        var frames: Int?
        var reencoded = 0
        var copied: Int?
    }

    static func wrote(_ stdout: String) -> Wrote {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("wrote ") }).map(String.init) else { return Wrote() }
        func number(_ pattern: String) -> Int? {
            guard let r = line.range(of: pattern, options: .regularExpression) else { return nil }
            return Int(line[r].split(separator: " ").first { Int($0) != nil } ?? "")
        }
        var said = Wrote()
        said.frames = number(#": \d+ frames"#)
        said.reencoded = number(#"; \d+ frames re-encoded"#) ?? 0
        said.copied = number(#"; \d+ copied"#)
        return said
    }

    /// The onsets (s) of the beeps in `file`'s first audio stream, and its length (s). In a
    /// movie the onsets are times from its first picture, as a player plays them: the decoded
    /// sound starts at its first frame's time (after the decoder's own skip, Opus's pre-skip or
    /// AAC's priming), which need not be the first picture's (FFmpeg's Matroska files of Opus
    /// put the sound 7 ms before the picture).
    ///
    /// `attacks` are the same beeps' attacks (``attacks(_:onsets:)``), and `lossy` says whether
    /// the sound is coded lossily (AAC, Opus, MP2, AC-3, MP3), whose pre-echo can cross the
    /// onsets' level before the beep.
    typealias Beeps = (onsets: [Double], length: Double, attacks: [Double], lossy: Bool)

    static func beeps(_ file: URL) throws -> Beeps {
        let samples = try TestSupport.decodeAudio(file)
        let sound = try firstFrame(file, "a:0")
        let offset = try soundOffset(file, sound: sound.time)
        let found = Signals.onsets(samples, threshold: 0.05, quiet: 1200)
        let name = sound.codec
        let lossy = !(name.hasPrefix("pcm_") || name == "flac" || name.isEmpty)
        return (found.map { Double($0) / 48000 + offset }, Double(samples.count) / 48000,
                attacks(samples, onsets: found).map { Double($0) / 48000 + offset }, lossy)
    }

    /// Where each beep's attack is: the first sample from its onset on at a quarter (-12 dB) of
    /// the beep's peak in the 25 ms after the onset. A lossy codec's pre-echo (AAC's, from
    /// the transform block the attack falls in: -20 dB and 3-4 ms ahead of it, as FFmpeg's
    /// encoder makes it at 48 to 256 kb/s alike) crosses the onsets' fixed level of 0.05 early,
    /// but stays under this one; a beep that is really early is early here too.
    static func attacks(_ samples: [Float], onsets: [Int]) -> [Int] {
        onsets.map { onset in
            let window = samples[onset..<min(samples.count, onset + 1200)]
            let peak = window.reduce(Float(0)) { max($0, abs($1)) }
            return window.firstIndex { abs($0) >= peak / 4 } ?? onset
        }
    }

    /// The first audio frame's time less the first picture's (0 without video), seconds.
    static func soundOffset(_ file: URL) throws -> Double {
        try soundOffset(file, sound: firstFrame(file, "a:0").time)
    }

    private static func soundOffset(_ file: URL, sound: Double?) throws -> Double {
        guard let picture = try firstFrame(file, "v:0").time, let sound else { return 0 }
        return sound - picture
    }

    /// The time of the first frame of `stream` (`v:0`, `a:0`), from its first packet, and the
    /// stream's codec: one ffprobe run (it was two for the sound, 55 ms of CPU each, some 60
    /// times an oracle run).
    private static func firstFrame(_ file: URL, _ stream: String) throws -> (time: Double?, codec: String) {
        let probe = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", stream, "-read_intervals", "%+#1",
                                                     "-show_entries", "frame=best_effort_timestamp_time:stream=codec_name", "-of", "json", file.path])
        let json = (try? JSONSerialization.jsonObject(with: Data(probe.stdout.utf8))) as? [String: Any]
        let frames = json?["frames"] as? [[String: Any]] ?? []
        let time = frames.compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap { Double($0) } }.first
        let codec = ((json?["streams"] as? [[String: Any]])?.first?["codec_name"] as? String) ?? ""
        return (time, codec)
    }

    /// PSNR of `a` against `b` (8-bit or 10-bit little-endian samples).
    static func psnr(_ a: Data, _ b: Data, tenBit: Bool) -> Double { HEVCSmartCutTests.psnr(a, b, tenBit: tenBit) }
}
