internal import CFFmpeg
import Media

/// How a rendered audio track is encoded: as its source's own codec where slowpoke can encode it
/// and the container can hold it (Opus, Vorbis, FLAC and PCM in Matroska, PCM in mov, AAC
/// in all but WebM, Opus and Vorbis in WebM), otherwise as AAC (in WebM as Opus at 48 kHz, else
/// Vorbis), saying why.
struct AudioCodecChoice {
    let codec: AVCodecID
    let sampleFormat: AVSampleFormat
    /// nil for lossless codecs.
    let bitRate: Int?
    let bitsPerRawSample: Int32?
    /// Why the source's codec is not kept; nil when it is.
    let why: String?

    private static let pcm = Container.pcmAudio

    /// The choice for a source stream with `source` parameters, written by `muxer`; `aacBitRate`
    /// is the AAC bit rate asked for.
    init(source: AVCodecParameters, container: Container, aacBitRate: Int) {
        let id = source.codec_id
        if container.keepsAudio(id), id != AV_CODEC_ID_AAC || container.isWebM, let encoder = LibAVCodec.findEncoder(id),
           let format = Self.sampleFormat(of: encoder) {
            codec = id
            let lossless = id == AV_CODEC_ID_FLAC || Self.pcm.contains(id)
            let deep = source.bits_per_raw_sample > 16 || source.bits_per_coded_sample > 16
            if id == AV_CODEC_ID_FLAC {
                sampleFormat = deep ? AV_SAMPLE_FMT_S32 : AV_SAMPLE_FMT_S16
            } else {
                sampleFormat = format
            }
            bitRate = lossless ? nil : (source.bit_rate > 0 ? Int(source.bit_rate) : 128_000)
            bitsPerRawSample = id == AV_CODEC_ID_FLAC && deep ? 24 : nil
            why = nil
            return
        }
        // WebM holds no AAC: Opus where the rate is Opus's, else Vorbis (any rate).
        let webm = container.isWebM ? (source.sample_rate == 48000 ? AV_CODEC_ID_OPUS : AV_CODEC_ID_VORBIS) : nil
        codec = webm ?? AV_CODEC_ID_AAC
        sampleFormat = webm.flatMap { LibAVCodec.findEncoder($0) }.flatMap { Self.sampleFormat(of: $0) } ?? AV_SAMPLE_FMT_FLTP
        bitRate = webm != nil && source.bit_rate > 0 ? max(Int(source.bit_rate), 64_000) : aacBitRate
        bitsPerRawSample = nil
        let sourceName = String(cString: LibAVCodec.codecName(id))
        let places = Container.extensions(keepingAudio: id)
        if let webm {
            why = ".webm holds only Opus and Vorbis audio, so \(sourceName) becomes \(String(cString: LibAVCodec.codecName(webm))); export to \((places.isEmpty ? [".mkv"] : places).joined(separator: " or ")) to keep it"
        } else if id == AV_CODEC_ID_AAC {
            why = nil
        } else if LibAVCodec.findEncoder(id) == nil || places.isEmpty {
            why = "slowpoke cannot write \(sourceName) audio"
        } else {
            why = "slowpoke keeps \(sourceName) audio only in \(places.joined(separator: " or ")); export to one to keep it"
        }
    }

    /// Whether a movie export splices this stream (smart audio): `container` holds the codec,
    /// no pitch is shifted (`semitones`), and ``splices(_:container:)``. The one test the
    /// audio tracks, the timeline's fitting and `info`'s plan share.
    func splicesMovieAudio(_ source: AVCodecParameters, container: Container, semitones: Double) -> Bool {
        container.holds(source.codec_id) && semitones == 0 && splices(source, container: container)
    }

    /// Whether an export can keep a source stream's own packets where the timeline leaves its
    /// audio unchanged and splice encoded ones in between (smart audio, ``SplicedAudio``): the
    /// source's codec is kept and is AAC-LC (fixed 1024-sample frames, which slowpoke's AAC
    /// encoder writes with the same stream parameters), PCM (cut anywhere), or Opus at 48 kHz
    /// written by `muxer` Matroska (20 ms packets on a grid that only DiscardPadding can
    /// bridge). Others are re-encoded whole: Vorbis's packets vary in length with its block
    /// switching, MP3 borrows bits across frames, FLAC frames state their position.
    func splices(_ source: AVCodecParameters, container: Container) -> Bool {
        guard codec == source.codec_id, why == nil else { return false }
        // Opus in Matroska: its 20 ms packets sit on a grid that DiscardPadding can bridge.
        if codec == AV_CODEC_ID_OPUS { return container.isMatroska && source.sample_rate == 48000 }
        return (codec == AV_CODEC_ID_AAC && source.profile == 1 /* FF_PROFILE_AAC_LOW */) || Self.pcm.contains(codec)
    }

    /// The encoder's preferred planar-float-like sample format, or its first one.
    fileprivate static func sampleFormat(of encoder: UnsafePointer<AVCodec>) -> AVSampleFormat? {
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

// MARK: Audio files

extension AudioCodecChoice {
    /// The choice for an audio file `file` (its ``Container/audioFileCodec``) from a
    /// source stream with `source` parameters: the container's codec, at the source's bit rate
    /// when the source is already that codec (a re-encode should not change it), else at
    /// `defaultBitRate`. FLAC and WAV keep 16-bit sources 16-bit and write deeper ones as 24-bit (WAV:
    /// floating-point sources as 32-bit float), as `slowpoke stretch` does.
    init(audioFile file: Container, source: AVCodecParameters, defaultBitRate: Int) {
        let id = file.audioFileCodec ?? AV_CODEC_ID_AAC
        why = nil
        let sourceFormat = AVSampleFormat(source.format)
        let depth16 = [AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P].contains(sourceFormat)
        let integer32 = [AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P].contains(sourceFormat)
        switch id {
        case AV_CODEC_ID_FLAC:
            codec = id
            sampleFormat = depth16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32
            bitRate = nil
            bitsPerRawSample = depth16 ? nil : 24
        case AV_CODEC_ID_PCM_S16LE:
            (codec, sampleFormat) = depth16 ? (AV_CODEC_ID_PCM_S16LE, AV_SAMPLE_FMT_S16)
                : integer32 ? (AV_CODEC_ID_PCM_S24LE, AV_SAMPLE_FMT_S32) : (AV_CODEC_ID_PCM_F32LE, AV_SAMPLE_FMT_FLT)
            bitRate = nil
            bitsPerRawSample = codec == AV_CODEC_ID_PCM_S24LE ? 24 : nil
        default:
            codec = id
            sampleFormat = LibAVCodec.findEncoder(id).flatMap(Self.sampleFormat(of:)) ?? AV_SAMPLE_FMT_FLTP
            bitRate = source.codec_id == id && source.bit_rate > 0 ? Int(source.bit_rate) : defaultBitRate
            bitsPerRawSample = nil
        }
    }

    /// How a source fits the encoder of an audio file's codec in this FFmpeg.
    enum AudioFileFit: Equatable {
        case fits
        case noEncoder
        /// Opus takes 48, 24, 16, 12 and 8 kHz only; MP3 nothing above 48 kHz.
        case sampleRate
        /// MP3 holds mono and stereo only.
        case channels
    }

    /// Whether this FFmpeg has an encoder for `file`'s codec that takes `channels` channels
    /// at `sampleRate`.
    static func fit(audioFile file: Container, sampleRate: Int, channels: Int) -> AudioFileFit {
        guard let id = file.audioFileCodec, let encoder = LibAVCodec.findEncoder(id) else { return .noEncoder }
        if let rates = encoder.pointee.supported_samplerates {
            var i = 0, found = false
            while rates[i] != 0 && !found { found = Int(rates[i]) == sampleRate; i += 1 }
            guard found else { return .sampleRate }
        }
        if let layouts = encoder.pointee.ch_layouts {
            var i = 0, found = false
            while layouts[i].nb_channels != 0 && !found { found = Int(layouts[i].nb_channels) == channels; i += 1 }
            guard found else { return .channels }
        }
        return .fits
    }
}
