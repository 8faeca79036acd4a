/// What one coded audio frame's header says about its format: sample rate, channel count and
/// channel mask (libavutil's `AV_CH_*` bits), read from the bytes without decoding.
///
/// Broadcast and camcorder audio changes format mid-stream (a 5.1 film between stereo adverts,
/// clips at 44.1 and 48 kHz joined with `cat`); the container's header states only the first
/// format. The codecs that do this carry their format in every frame's header:
///
///     AC-3     0B 77 crc(16) fscod(2) frmsizecod(6) bsid(5) bsmod(3) acmod(3) [mix levels] lfeon(1)
///     E-AC-3   0B 77 strmtyp(2) substreamid(3) frmsiz(11) fscod(2) numblkscod(2) acmod(3) lfeon(1) bsid(5)
///     ADTS     FFF(12) id layer(2) absent(1) profile(2) sf_index(4) private(1) channel_config(3) …
///     MPEG     FFE(11) version(2) layer(2) protection(1) bitrate(4) rate(2) padding(1) private(1) mode(2) …
struct AudioFrameHeader: Equatable, Sendable {
    var sampleRate: Int
    var channels: Int
    /// `AV_CH_*` bits; 0 when the header names no layout (an ADTS program config element).
    var mask: UInt64
    /// Samples the frame decodes to (per channel).
    var samples: Int

    /// Whether `other` states the same format (whatever its length).
    func sameFormat(as other: AudioFrameHeader?) -> Bool {
        other.map { $0.sampleRate == sampleRate && $0.channels == channels && $0.mask == mask } ?? false
    }

    enum Codec: Sendable { case ac3, eac3, aac, mpeg }

    // libavutil's channel bits.
    static let left: UInt64 = 0x1, right: UInt64 = 0x2, centre: UInt64 = 0x4, lfe: UInt64 = 0x8
    static let backLeft: UInt64 = 0x10, backRight: UInt64 = 0x20, leftOfCentre: UInt64 = 0x40, rightOfCentre: UInt64 = 0x80
    static let backCentre: UInt64 = 0x100, sideLeft: UInt64 = 0x200, sideRight: UInt64 = 0x400

    /// The header at the start of `bytes`, or nil when they hold none this reader knows.
    static func parse(_ codec: Codec, _ bytes: UnsafeBufferPointer<UInt8>) -> AudioFrameHeader? {
        switch codec {
        case .ac3, .eac3: dolby(bytes)
        case .aac: adts(bytes)
        case .mpeg: mpeg(bytes)
        }
    }

    /// AC-3's audio coding mode: the main channels (the LFE is a bit of its own).
    private static let dolbyModes: [UInt64] = [
        left | right, centre, left | right, left | right | centre, left | right | backCentre,
        left | right | centre | backCentre, left | right | sideLeft | sideRight, left | right | centre | sideLeft | sideRight,
    ]

    private static func dolby(_ b: UnsafeBufferPointer<UInt8>) -> AudioFrameHeader? {
        guard b.count >= 8, b[0] == 0x0B, b[1] == 0x77 else { return nil }
        let bsid = Int(b[5] >> 3)
        var bits = BitReader(b, byteOffset: 2)
        let rate: Int, acmod: Int, lfe: Bool
        var blocks = 6
        if bsid <= 10 {
            _ = bits.read(16)
            let fscod = bits.read(2)
            guard fscod < 3 else { return nil }
            rate = [48000, 44100, 32000][fscod] >> max(0, bsid - 8)
            _ = bits.read(6 + 5 + 3)
            acmod = bits.read(3)
            if acmod & 1 != 0 && acmod != 1 { _ = bits.read(2) }
            if acmod & 4 != 0 { _ = bits.read(2) }
            if acmod == 2 { _ = bits.read(2) }
            lfe = bits.read(1) == 1
        } else if bsid <= 16 {
            let type = bits.read(2), substream = bits.read(3)
            // A dependent substream adds channels to an independent one; the first independent
            // substream states the programme's format.
            guard type != 1, substream == 0 else { return nil }
            _ = bits.read(11)
            let fscod = bits.read(2), reduced = bits.read(2)
            guard fscod < 3 || reduced < 3 else { return nil }
            rate = fscod < 3 ? [48000, 44100, 32000][fscod] : [24000, 22050, 16000][reduced]
            if fscod < 3 { blocks = [1, 2, 3, 6][reduced] }
            acmod = bits.read(3)
            lfe = bits.read(1) == 1
        } else {
            return nil
        }
        let mask = dolbyModes[acmod] | (lfe ? Self.lfe : 0)
        return AudioFrameHeader(sampleRate: rate, channels: mask.nonzeroBitCount, mask: mask, samples: blocks * 256)
    }

    private static let adtsRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
    /// AAC's channel configurations 1-7, as libavcodec's decoder lays them out.
    private static let adtsLayouts: [UInt64] = [
        0, centre, left | right, left | right | centre, left | right | centre | backCentre,
        left | right | centre | backLeft | backRight, left | right | centre | lfe | backLeft | backRight,
        left | right | centre | lfe | backLeft | backRight | leftOfCentre | rightOfCentre,
    ]

    private static func adts(_ b: UnsafeBufferPointer<UInt8>) -> AudioFrameHeader? {
        guard b.count >= 7, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        let index = Int(b[2] >> 2) & 0xF
        let configuration = Int(b[2] & 1) << 2 | Int(b[3] >> 6)
        guard index < adtsRates.count else { return nil }
        let mask = adtsLayouts[configuration]
        return AudioFrameHeader(sampleRate: adtsRates[index], channels: mask.nonzeroBitCount, mask: mask,
                                samples: 1024 * (Int(b[6] & 3) + 1))
    }

    private static func mpeg(_ b: UnsafeBufferPointer<UInt8>) -> AudioFrameHeader? {
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int(b[1] >> 3) & 3, layer = Int(b[1] >> 1) & 3, index = Int(b[2] >> 2) & 3
        guard version != 1, layer != 0, index != 3 else { return nil }
        let rate = [44100, 48000, 32000][index] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let mono = b[3] >> 6 == 3
        let samples = layer == 3 ? 384 : layer == 1 && version != 3 ? 576 : 1152
        return AudioFrameHeader(sampleRate: rate, channels: mono ? 1 : 2, mask: mono ? centre : left | right, samples: samples)
    }
}

/// Reads bits most significant first.
private struct BitReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, byteOffset: Int) {
        self.bytes = bytes
        position = byteOffset * 8
    }

    /// The next `count` bits (0 past the end).
    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = position / 8
            let bit = byte < bytes.count ? Int(bytes[byte] >> (7 - UInt8(position % 8))) & 1 : 0
            value = value << 1 | bit
            position += 1
        }
        return value
    }
}
