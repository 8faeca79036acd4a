/// The header an AAC frame carries in a transport stream or a raw `.aac` file (ADTS, ISO/IEC
/// 13818-7 6.2): an mp4 or Matroska track states the same facts once, in its AudioSpecificConfig
/// (ISO/IEC 14496-3 1.6.2.1), and holds the frames without headers. Copying a transport
/// stream's AAC frames into one strips each header and states the config, as ffmpeg's
/// `aac_adtstoasc` does; the frames encoded for an edit come without headers already.
///
/// ```
///   ADTS   FFF | id layer prot | profile(2) rate(4) priv ch(3) ... | [CRC] | raw frame
///   ASC    object type(5) = profile + 1 | rate index(4) | channels(4) | 000
/// ```
struct ADTSHeader {
    /// Bytes before the raw frame: 7, or 9 with a CRC.
    let length: Int
    let profile: UInt8
    let rateIndex: UInt8
    let channelConfiguration: UInt8
    /// Raw data blocks in the frame, less one.
    let extraBlocks: UInt8

    /// The header at the start of `bytes`; nil when there is none.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return nil }
        length = bytes[1] & 1 == 1 ? 7 : 9
        profile = bytes[2] >> 6
        rateIndex = (bytes[2] >> 2) & 0x0F
        channelConfiguration = (bytes[2] & 1) << 2 | bytes[3] >> 6
        extraBlocks = bytes[6] & 3
        guard bytes.count > length, rateIndex < 13 else { return nil }
    }

    /// The AudioSpecificConfig an mp4 states for these frames (two bytes).
    var audioSpecificConfig: [UInt8] {
        let objectType = profile + 1
        return [objectType << 3 | rateIndex >> 1, (rateIndex & 1) << 7 | channelConfiguration << 3]
    }
}
