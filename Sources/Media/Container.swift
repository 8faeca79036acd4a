package import CFFmpeg
import Foundation

/// A file format slowpoke writes, made once from the output's extension. Every question about
/// the container (which muxer, whether it is Matroska, whether it can hide frames behind an
/// edit list, whether codecs keep their extradata in a global header, what it holds, how
/// messages name it) is asked here, not of a muxer name; what slowpoke keeps, encodes and times
/// in each is in `Container+Codecs.swift`, and the default output names in ``OutputNaming``.
package struct Container: Sendable, Hashable {
    /// libavformat's name of the muxer: mp4, mov, matroska, webm, ipod, wav, flac, mp3, opus.
    package let muxer: String
    /// The output's extension, lowercased, as the user gave it (`m4v` is an mp4).
    package let fileExtension: String
    /// Written as a stream, front to back with no seeking (to standard output): mp4 is then
    /// fragmented (an empty `moov`, then a fragment from each keyframe), Matroska has no cues.
    package let isStreamed: Bool

    /// The movie containers, by extension, in the order messages list them.
    private static let movies: KeyValuePairs = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska", "webm": "webm"]
    /// The audio-only files (a movie with no video), by extension, in the order messages list them.
    private static let audioFiles: KeyValuePairs = ["m4a": "ipod", "wav": "wav", "flac": "flac", "mp3": "mp3", "opus": "opus"]
    /// The movie extensions users are told about, in order: each container's first (`m4v` is
    /// accepted as an mp4).
    package static let movieExtensions = movies.filter { pair in movies.first { $0.value == pair.value }?.key == pair.key }.map(\.key)
    /// Every extension a movie export accepts: those users are told about and `m4v` (an mp4).
    package static let acceptedMovieExtensions = movies.map(\.key)
    /// The audio extensions users are told about, in order.
    package static let audioExtensions = audioFiles.map(\.key)

    /// The movie container of a file named with `fileExtension`; nil if slowpoke writes no movie so.
    package init?(movie fileExtension: String) {
        let ext = fileExtension.lowercased()
        guard let muxer = Self.movies.first(where: { $0.key == ext })?.value else { return nil }
        self.init(muxer: muxer, fileExtension: ext)
    }

    /// The audio file of `fileExtension`; nil if slowpoke writes no audio file so.
    package init?(audioFile fileExtension: String) {
        let ext = fileExtension.lowercased()
        guard let muxer = Self.audioFiles.first(where: { $0.key == ext })?.value else { return nil }
        self.init(muxer: muxer, fileExtension: ext)
    }

    /// The container of `output`: its extension's, or for standard output (``StandardOutput``)
    /// the stream form of its format (mkv, fragmented mp4, or an MPEG transport stream).
    package init?(movieAt output: URL) {
        guard StandardOutput.isStandardOutput(output) else {
            self.init(movie: output.pathExtension)
            return
        }
        switch output.pathExtension {
        case "mkv": self.init(muxer: "matroska", fileExtension: "mkv", isStreamed: true)
        case "mp4": self.init(muxer: "mp4", fileExtension: "mp4", isStreamed: true)
        case "ts": self.init(muxer: "mpegts", fileExtension: "ts", isStreamed: true)
        default: return nil
        }
    }

    private init(muxer: String, fileExtension: String, isStreamed: Bool = false) {
        self.muxer = muxer
        self.fileExtension = fileExtension
        self.isStreamed = isStreamed
    }

    /// Matroska or WebM (Matroska limited to VP8, VP9 and AV1 video, Opus and Vorbis audio and
    /// WebVTT subtitles).
    package var isMatroska: Bool { muxer == "matroska" || muxer == "webm" }
    package var isWebM: Bool { muxer == "webm" }
    /// Full Matroska (mkv), which holds attachments and any subtitle text.
    package var isFullMatroska: Bool { muxer == "matroska" }
    /// mp4 or mov: QuickTime's sample entries, edit lists and `hvc1`.
    package var isQuickTime: Bool { muxer == "mp4" || muxer == "mov" }
    /// mp4, mov or m4a: the movflags family.
    package var isISOMedia: Bool { isQuickTime || muxer == "ipod" }
    /// Whether the container can keep frames as undisplayed references behind an edit list of
    /// its own (mp4 and mov can; Matroska cannot, nor a fragmented mp4, whose `moov` is written
    /// before any sample).
    package var canHideFrames: Bool { isQuickTime && !isStreamed }
    /// An MPEG transport stream (`--format ts` on standard output).
    var isTransportStream: Bool { muxer == "mpegts" }

    /// libavformat's description of the muxer (loaded libav required).
    package var format: UnsafePointer<AVOutputFormat>? { LibAVFormat.guessFormat(muxer, nil, nil) }

    /// Whether codecs written into it keep their extradata in a global header.
    package var globalHeader: Bool { format.map { $0.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? true }

    /// Whether it can hold a stream of `codec`. (libavformat's transport stream muxer answers
    /// only for its default codecs; these are the ones it writes, from its stream types.)
    package func holds(_ codec: AVCodecID) -> Bool {
        if isTransportStream { return Self.transportStreamCodecs.contains(codec) }
        return format.map { LibAVFormat.queryCodec($0, codec, 0) == 1 } ?? false
    }

    private static let transportStreamCodecs: Set<AVCodecID> = [
        AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG4,
        AV_CODEC_ID_AAC, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_OPUS,
        AV_CODEC_ID_DVB_SUBTITLE, AV_CODEC_ID_DVB_TELETEXT,
    ]

    /// How messages name it: `Matroska`, `WebM`, else the muxer's name (`mp4`, `mov`).
    package var displayName: String {
        switch muxer {
        case "matroska": "Matroska"
        case "webm": "WebM"
        case "mpegts": "MPEG-TS"
        default: muxer
        }
    }

    /// The movie containers that hold `codec`, as extensions, in the order users are told about them.
    package static func movieContainers(holding codec: AVCodecID) -> [String] {
        movieExtensions.filter { Container(movie: $0)!.holds(codec) }
    }
}
