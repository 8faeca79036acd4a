import Foundation
internal import CFFmpeg

/// A stream a player can switch to: an audio track or a subtitle track, with what a menu
/// shows of it.
public struct PlayableStream: Sendable, Hashable {
    /// The stream's number in the file.
    public let index: Int
    /// The ISO 639 language tag (`eng`, `fra`), when the file states one.
    public let language: String?
    /// The stream's title, when the file states one.
    public let title: String?
    /// Marked as the one to play (audio) or show (subtitles) by default.
    public let isDefault: Bool
    /// For subtitles: text (SRT, ASS, WebVTT, mov_text) rather than pictures (PGS, DVD).
    public let isText: Bool

    public init(index: Int, language: String?, title: String?, isDefault: Bool, isText: Bool) {
        self.index = index
        self.language = language
        self.title = title
        self.isDefault = isDefault
        self.isText = isText
    }
}

/// The audio and subtitle streams of a movie, in file order, with their dispositions (which
/// ``MediaInfo`` does not keep).
public enum PlayableStreams {
    public static func of(_ url: URL) throws(MediaError) -> (audio: [PlayableStream], subtitles: [PlayableStream]) {
        let input = try InputFormatContext(path: url.path)
        var audio: [PlayableStream] = [], subtitles: [PlayableStream] = []
        for i in 0..<input.streamCount {
            let stream = input.stream(i).pointer.pointee
            let parameters = stream.codecpar.pointee
            func tag(_ key: String) -> String? {
                guard let entry = av_dict_get(stream.metadata, key, nil, 0) else { return nil }
                let value = String(cString: entry.pointee.value)
                return value.isEmpty || value == "und" ? nil : value
            }
            let text = (LibAVCodec.descriptor(parameters.codec_id)?.pointee.props ?? 0) & AV_CODEC_PROP_TEXT_SUB != 0
            let entry = PlayableStream(index: i, language: tag("language"), title: tag("title"),
                                       isDefault: stream.disposition & AV_DISPOSITION_DEFAULT != 0, isText: text)
            if parameters.codec_type == AVMEDIA_TYPE_AUDIO { audio.append(entry) }
            if parameters.codec_type == AVMEDIA_TYPE_SUBTITLE { subtitles.append(entry) }
        }
        return (audio, subtitles)
    }
}
