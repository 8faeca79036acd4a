import Foundation
import TimePitch

/// Noise made by ffmpeg, and WAV files read, taken apart and patched, for the tests of the WAV
/// reader (MediaTests) and writer (ExportTests).
public enum WAVTestFiles {
    /// One distinct noise per channel, a little louder than full scale so that the integer
    /// formats clip, `seconds` long, made by ffmpeg as `codec` (such as `pcm_s24le`).
    public static func noise(_ codec: String, channels: Int, seconds: Double = 0.5, rate: Int = 44100, to url: URL) throws {
        let expressions = (0..<channels).map { "1.1*(2*random(\($0))-1)" }.joined(separator: "|")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc=\(expressions):s=\(rate):d=\(seconds)",
                                                    "-c:a", codec, "-y", url.path])
        guard made.status == 0 else { throw WAVTestFailure(message: made.stderr) }
    }

    /// Every frame of `source`, read in blocks of awkward sizes from before its start to past
    /// its end, with the frames outside it checked to be silence.
    public static func readAll(_ source: AudioSource, frames: Int) throws -> [[Float]] {
        let channels = source.format.channels
        var out = [[Float]](repeating: [], count: channels)
        var position = -777
        var step = 0
        while position < frames + 1000 {
            let count = [4096, 1, 3001, 16_384, 17][step % 5]
            step += 1
            var block = [[Float]](repeating: [Float](repeating: .nan, count: count), count: channels)
            try source.read(at: Int64(position), count: count, into: &block)
            for i in 0..<count {
                let at = position + i
                if at >= 0 && at < frames {
                    for c in 0..<channels { out[c].append(block[c][i]) }
                } else if (0..<channels).contains(where: { block[c: $0, i] != 0 }) {
                    throw WAVTestFailure(message: "frame \(at), outside the stream, is not silent")
                }
            }
            position += count
        }
        return out
    }

    /// The bit patterns, so that comparisons are exact (and -0 differs from 0).
    public static func bits(_ planes: [[Float]]) -> [[UInt32]] { planes.map { $0.map(\.bitPattern) } }

    public static func data(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    public static func write(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }

    /// The offset of the first chunk called `id` (its header), found by walking the chunks.
    public static func chunk(_ id: String, in bytes: [UInt8]) -> Int? {
        var at = 12
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if String(decoding: bytes[at..<(at + 4)], as: UTF8.self) == id { return at }
            at += 8 + size + (size & 1)
        }
        return nil
    }

    public static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    public static func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
}

extension [[Float]] {
    public subscript(c channel: Int, _ index: Int) -> Float { self[channel][index] }
}

/// A tool or check that failed in a test's set-up.
public struct WAVTestFailure: Error {
    public let message: String
    public init(message: String) { self.message = message }
}

