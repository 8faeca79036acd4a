internal import CFFmpeg

/// How a rendered audio track is encoded: as its source's own codec where slowpoke can encode it
/// and the container can hold it (Opus, Vorbis and FLAC in Matroska, AAC anywhere), otherwise
/// as AAC, with a note saying so.
struct AudioCodecChoice {
    let codec: AVCodecID
    let sampleFormat: AVSampleFormat
    /// nil for lossless codecs.
    let bitRate: Int?
    let bitsPerRawSample: Int32?
    /// Why the source's codec was not kept, when it was not.
    let note: String?

    /// Codecs kept as they are, by muxer; the rest become AAC.
    private static let kept: [String: [AVCodecID]] = [
        "matroska": [AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS, AV_CODEC_ID_FLAC],
        "mp4": [AV_CODEC_ID_AAC], "mov": [AV_CODEC_ID_AAC],
    ]

    /// The choice for a source stream with `source` parameters, written by `muxer`; `aacBitRate`
    /// is the AAC bit rate asked for. `name` names the stream in the note.
    init(source: AVCodecParameters, muxer: String, aacBitRate: Int, name: String) {
        let id = source.codec_id
        if Self.kept[muxer]?.contains(id) == true, id != AV_CODEC_ID_AAC, let encoder = avcodec_find_encoder(id),
           let format = Self.sampleFormat(of: encoder) {
            codec = id
            let lossless = id == AV_CODEC_ID_FLAC
            sampleFormat = lossless ? (source.bits_per_raw_sample > 16 ? AV_SAMPLE_FMT_S32 : AV_SAMPLE_FMT_S16) : format
            bitRate = lossless ? nil : (source.bit_rate > 0 ? Int(source.bit_rate) : 128_000)
            bitsPerRawSample = lossless && source.bits_per_raw_sample > 16 ? 24 : nil
            note = nil
            return
        }
        codec = AV_CODEC_ID_AAC
        sampleFormat = AV_SAMPLE_FMT_FLTP
        bitRate = aacBitRate
        bitsPerRawSample = nil
        let sourceName = String(cString: avcodec_get_name(id))
        note = id == AV_CODEC_ID_AAC ? nil
            : "\(name) (\(sourceName)) is encoded as AAC: slowpoke cannot write \(sourceName) into \(muxer == "matroska" ? "Matroska" : muxer)"
    }

    /// The encoder's preferred planar-float-like sample format, or its first one.
    private static func sampleFormat(of encoder: UnsafePointer<AVCodec>) -> AVSampleFormat? {
        guard let formats = encoder.pointee.sample_fmts else { return nil }
        var all: [AVSampleFormat] = []
        var i = 0
        while formats[i] != AV_SAMPLE_FMT_NONE { all.append(formats[i]); i += 1 }
        for preferred in [AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S16] where all.contains(preferred) {
            return preferred
        }
        return all.first
    }
}
