package import CFFmpeg

/// What each container takes, as slowpoke writes it: the tables every writer asks instead of
/// comparing muxer names. ``Container/holds(_:)`` says what libavformat can mux; these say
/// what slowpoke keeps, encodes and times there.
extension Container {
    /// The PCM codecs a movie export keeps as they are where the container takes PCM.
    package static let pcmAudio: [AVCodecID] = [AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S32LE,
                                        AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_S16BE, AV_CODEC_ID_PCM_S24BE]

    /// Audio codecs a movie export keeps as they are, by muxer; the rest become AAC (in WebM,
    /// Opus or Vorbis).
    private static let keptAudio: [String: [AVCodecID]] = [
        "matroska": [AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS, AV_CODEC_ID_FLAC] + pcmAudio,
        "mp4": [AV_CODEC_ID_AAC], "mov": [AV_CODEC_ID_AAC] + pcmAudio, "webm": [AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS],
    ]

    /// Whether a movie export keeps rendered audio of `codec` in its own codec here.
    package func keepsAudio(_ codec: AVCodecID) -> Bool {
        Self.keptAudio[muxer]?.contains(codec) == true
    }

    /// The movie extensions that keep audio of `codec`, dotted, in the order advice names them
    /// (`.mkv`, `.webm`, `.mov`, `.mp4`).
    package static func extensions(keepingAudio codec: AVCodecID) -> [String] {
        ["mkv", "webm", "mov", "mp4"].filter { Container(movie: $0)!.keepsAudio(codec) }.map { "." + $0 }
    }

    /// The one codec of each audio file slowpoke writes, by muxer, and how messages name it
    /// (WAV's PCM depth follows the source: see `AudioCodecChoice`).
    private static let audioFileCodecs: [String: (codec: AVCodecID, name: String)] = [
        "ipod": (AV_CODEC_ID_AAC, "AAC"), "mp3": (AV_CODEC_ID_MP3, "MP3"), "opus": (AV_CODEC_ID_OPUS, "Opus"),
        "flac": (AV_CODEC_ID_FLAC, "FLAC"), "wav": (AV_CODEC_ID_PCM_S16LE, "WAV"),
    ]

    /// The codec of an audio file (``init(audioFile:)``); nil for a movie container.
    package var audioFileCodec: AVCodecID? { Self.audioFileCodecs[muxer]?.codec }

    /// How messages name an audio file's codec: `AAC`, `WAV`; the muxer's name for a movie.
    package var audioFileCodecName: String { Self.audioFileCodecs[muxer]?.name ?? muxer }

    /// A WAV file (whose sizes are 32-bit: past 4 GiB it becomes RF64).
    package var isWAV: Bool { muxer == "wav" }

    /// The movie extensions slowpoke writes re-encoded video of `codec` into, in the order users
    /// are told about them; empty for a codec it does not encode. Measured with FFmpeg 5.1's
    /// muxers: mp4 has no tag for ProRes and WebM none for H.264, HEVC or ProRes; mov takes VP9
    /// only as mp4 (refused), and VP9 in mp4 would lose its alpha (it rides in Matroska's
    /// BlockAdditional), so VP9 goes to WebM and Matroska.
    package static func extensions(encodingVideo codec: AVCodecID) -> [String] {
        switch codec {
        case AV_CODEC_ID_H264, AV_CODEC_ID_HEVC: ["mp4", "m4v", "mov", "mkv"]
        case AV_CODEC_ID_PRORES: ["mov", "mkv"]
        case AV_CODEC_ID_VP9: ["webm", "mkv"]
        default: []
        }
    }

    /// The timescale every stream's timestamps take here whatever the muxer is asked, or nil
    /// where the export chooses it: Matroska stores milliseconds.
    package var fixedTimescale: Int32? { isMatroska ? 1000 : nil }
}
