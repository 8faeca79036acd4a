import Foundation

/// WAV files made byte by byte, independently of slowpoke's reader and writer.
public enum WAVBytes {
    public enum Encoding { case s16, f32, s24Extensible }

    public static func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A WAV of a 440 Hz tone.
    public static func make(_ encoding: Encoding, channels: Int, sampleRate: Int, frames: Int) -> Data {
        let bits = encoding == .s16 ? 16 : encoding == .f32 ? 32 : 24
        let blockAlign = channels * bits / 8
        var fmt = le(encoding == .s24Extensible ? 0xFFFE : encoding == .f32 ? 3 : 1, 2) + le(UInt64(channels), 2)
            + le(UInt64(sampleRate), 4) + le(UInt64(sampleRate * blockAlign), 4) + le(UInt64(blockAlign), 2) + le(UInt64(bits), 2)
        if encoding == .s24Extensible {
            fmt += le(22, 2) + le(24, 2) + le(3, 4) + le(1, 4) + [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        var samples: [UInt8] = []
        samples.reserveCapacity(frames * blockAlign)
        for i in 0..<frames {
            let x = 0.5 * sin(2 * Double.pi * 440 * Double(i) / Double(sampleRate))
            for _ in 0..<channels {
                switch encoding {
                case .s16: samples += le(UInt64(bitPattern: Int64(x * 32767)), 2)
                case .f32: samples += le(UInt64(Float(x).bitPattern), 4)
                case .s24Extensible: samples += le(UInt64(bitPattern: Int64(x * 8_388_607)), 3)
                }
            }
        }
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le(UInt64(fmt.count), 4) + fmt
            + Array("data".utf8) + le(UInt64(samples.count), 4) + samples
        return Data(Array("RIFF".utf8) + le(UInt64(body.count), 4) + body)
    }
}
