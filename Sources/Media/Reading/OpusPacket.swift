/// What slowpoke reads of Opus's own framing (RFC 6716 section 3.1, RFC 7845 section 5.1):
/// a packet's length in 48 kHz samples from its table-of-contents byte, and the pre-skip of an
/// `OpusHead` header.
package enum OpusPacket {
    /// Samples at 48 kHz in a packet, or nil when the bytes are not a whole TOC.
    static func samples(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let toc = bytes.first else { return nil }
        let config = Int(toc >> 3)
        // Frame length in 1/400 s (2.5 ms) units: SILK 10/20/40/60 ms, hybrid 10/20, CELT 2.5/5/10/20.
        let units: Int
        switch config {
        case 0..<12: units = [4, 8, 16, 24][config % 4]
        case 12..<16: units = [4, 8][config % 2]
        default: units = [1, 2, 4, 8][config % 4]
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard bytes.count > 1 else { return nil }
            frames = Int(bytes[1] & 0x3f)
        }
        return frames * units * 120
    }

    /// The pre-skip an `OpusHead` states: samples at 48 kHz the decoder drops at the start.
    package static func preSkip(_ head: UnsafeBufferPointer<UInt8>) -> Int? {
        guard head.count >= 19, Array(head[0..<8]) == Array("OpusHead".utf8) else { return nil }
        return Int(head[10]) | Int(head[11]) << 8
    }
}
