internal import CFFmpeg

/// A file format slowpoke writes, made once from the output's extension. Every question about
/// the container (which muxer, whether it is Matroska, whether it can hide frames behind an
/// edit list, whether codecs keep their extradata in a global header, what it holds, how
/// messages name it) is asked here, not of a muxer name.
struct Container: Sendable, Hashable {
    /// libavformat's name of the muxer: mp4, mov, matroska, webm, ipod, wav, flac, mp3, opus.
    let muxer: String
    /// The output's extension, lowercased, as the user gave it (`m4v` is an mp4).
    let fileExtension: String

    /// The movie containers, by extension.
    private static let movies = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska", "webm": "webm"]
    /// The audio-only files (a movie with no video), by extension.
    private static let audioFiles = ["m4a": "ipod", "wav": "wav", "flac": "flac", "mp3": "mp3", "opus": "opus"]
    /// The movie extensions users are told about, in order (`m4v` is accepted as an mp4).
    static let movieExtensions = ["mp4", "mov", "mkv", "webm"]
    /// The audio extensions users are told about, in order.
    static let audioExtensions = ["m4a", "wav", "flac", "mp3", "opus"]

    /// The movie container of a file named with `fileExtension`; nil if slowpoke writes no movie so.
    init?(movie fileExtension: String) {
        let ext = fileExtension.lowercased()
        guard let muxer = Self.movies[ext] else { return nil }
        self.init(muxer: muxer, fileExtension: ext)
    }

    /// The audio file of `fileExtension`; nil if slowpoke writes no audio file so.
    init?(audioFile fileExtension: String) {
        let ext = fileExtension.lowercased()
        guard let muxer = Self.audioFiles[ext] else { return nil }
        self.init(muxer: muxer, fileExtension: ext)
    }

    private init(muxer: String, fileExtension: String) {
        self.muxer = muxer
        self.fileExtension = fileExtension
    }

    /// Matroska or WebM (Matroska limited to VP8, VP9 and AV1 video, Opus and Vorbis audio and
    /// WebVTT subtitles).
    var isMatroska: Bool { muxer == "matroska" || muxer == "webm" }
    var isWebM: Bool { muxer == "webm" }
    /// Full Matroska (mkv), which holds attachments and any subtitle text.
    var isFullMatroska: Bool { muxer == "matroska" }
    /// mp4 or mov: QuickTime's sample entries, edit lists and `hvc1`.
    var isQuickTime: Bool { muxer == "mp4" || muxer == "mov" }
    /// mp4, mov or m4a: the movflags family.
    var isISOMedia: Bool { isQuickTime || muxer == "ipod" }
    /// Whether the container can keep frames as undisplayed references behind an edit list of
    /// its own (mp4 and mov can; Matroska cannot).
    var canHideFrames: Bool { isQuickTime }

    /// libavformat's description of the muxer (loaded libav required).
    var format: UnsafePointer<AVOutputFormat>? { av_guess_format(muxer, nil, nil) }

    /// Whether codecs written into it keep their extradata in a global header.
    var globalHeader: Bool { format.map { $0.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? true }

    /// Whether it can hold a stream of `codec`.
    func holds(_ codec: AVCodecID) -> Bool { format.map { avformat_query_codec($0, codec, 0) == 1 } ?? false }

    /// How messages name it: `Matroska`, `WebM`, else the muxer's name (`mp4`, `mov`).
    var displayName: String {
        switch muxer {
        case "matroska": "Matroska"
        case "webm": "WebM"
        default: muxer
        }
    }

    /// The movie containers that hold `codec`, as extensions, in the order users are told about them.
    static func movieContainers(holding codec: AVCodecID) -> [String] {
        movieExtensions.filter { Container(movie: $0)!.holds(codec) }
    }
}
