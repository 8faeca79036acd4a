import Foundation
public import Composition
internal import TimePitch
internal import CFFmpeg
import Media

/// What an export does with every stream of the movie, decided in one place: the export warns
/// with it before any work (nothing is left out without a word) and `slowpoke info` shows it.
///
/// | stream | passthrough | `--fps` |
/// |---|---|---|
/// | the document's video | copied, timestamps retimed | decoded and encoded |
/// | every audio track | copied when the timeline is untouched, else retimed and encoded as its own codec where the container holds it, else AAC | the same |
/// | text subtitles | cues retimed; converted (mov_text ↔ SRT) where the container needs it | the same |
/// | bitmap subtitles | cues retimed where the container holds them, else left out | the same |
/// | attachments | copied into Matroska, else left out | the same |
/// | chapters | retimed | the same |
/// | anything else | left out, with why | the same |
public struct StreamPlan: Sendable, Encodable {
    /// What happens to one stream.
    public enum Fate: String, Sendable, Codable {
        /// Copied packet for packet (timestamps mapped through the timeline).
        case copied
        /// Decoded, retimed through the timeline and encoded again.
        case retimed
        /// Decoded and encoded again (the video of an `--fps` export).
        case encoded
        /// Not in the export.
        case leftOut
    }

    public struct Entry: Sendable, Codable, Equatable {
        public let index: Int
        /// libavutil's media type name: video, audio, subtitle, attachment, data.
        public let kind: String
        public let codec: String
        public let fate: Fate
        /// What happens, in a few words a user can act on ("encoded as AAC: .mp4 cannot hold vorbis").
        public let detail: String
        /// What would keep a stream left out, for a front end to word (not in the JSON).
        public var remedies: [Remedy] = []

        private enum CodingKeys: String, CodingKey { case index, kind, codec, fate, detail }
    }

    private enum CodingKeys: String, CodingKey {
        case container, entries = "streams", chapters
    }

    /// The output's extension (mp4, mov, mkv).
    public let container: String
    public let entries: [Entry]
    /// The movie's chapters (retimed by every export).
    public let chapters: Int

    /// Why an audio track's codec changes when it is rendered, by stream.
    let codecNotes: [Int: String]
    /// What of an audio track lies outside the video and is left out, by stream (``AudioOverhang``).
    let overhangs: [Int: String]
    /// The document's video stream; nil for an audio-only export.
    let videoIndex: Int?
    /// The kinds of the streams the export writes (libavutil's names), in the movie's order.
    public var writtenKinds: [String] { entries.filter { $0.fate != .leftOut }.map(\.kind) }
    /// Whether the export writes the audio alone (the document has no video).
    public var isAudioOnly: Bool { videoIndex == nil }
    /// Subtitle streams, by what the export does with them.
    let subtitles: [(stream: Int, fate: SubtitleTracks.Fate)]

    /// The plan for exporting `source` to `output`: passthrough when `copyingVideo`, else
    /// re-encoded video. A movie without video exports its audio alone (``AudioExporter``).
    public static func make(source: ExportSource, output: URL, copyingVideo: Bool) throws -> StreamPlan {
        let input = try InputFormatContext(path: source.movie.path)
        if source.media.primaryVideo == nil {
            return StreamPlan(audioFileOf: input, source: source, container: output.pathExtension.lowercased())
        }
        let container = Container(movieAt: output) ?? Container(movie: "mp4")!
        return StreamPlan(input: input, source: source, container: container, copyingVideo: copyingVideo)
    }

    /// `settings`: the export's time-pitch settings (a pitch shift renders untouched audio too).
    init(input: InputFormatContext, source: ExportSource, container output: Container, copyingVideo: Bool,
         settings: TimePitchSettings? = nil) {
        let container = output.fileExtension
        self.container = container
        videoIndex = source.media.primaryVideo?.index
        chapters = Int(input.pointer.pointee.nb_chapters)
        subtitles = SubtitleTracks.plan(input, container: output).filter { source.media.isInProgram($0.stream) }
        let untouched = source.timeline.tracks.allSatisfy { ExportSession.playsSourceUntouched($0.segments, settings: settings) }
        let audio = Set(source.audioStreams)
        var entries: [Entry] = []
        var notes: [Int: String] = [:]
        for i in 0..<input.streamCount {
            let parameters = input.stream(i).parameters.pointee
            let kind = av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "data"
            let codec = Self.codecName(parameters)
            let holds = output.holds(parameters.codec_id)
            func entry(_ fate: Fate, _ detail: String) { entries.append(Entry(index: i, kind: kind, codec: codec, fate: fate, detail: detail)) }
            if !source.media.isInProgram(i), let chosen = source.media.programs?.first(where: { $0.id == source.media.program }) {
                let other = source.media.programs?.first { $0.streams.contains(i) }
                entry(.leftOut, "\(other.map { "in \($0.label)" } ?? "in no program"); the document plays \(chosen.label)")
            } else if i == videoIndex {
                if !copyingVideo { entry(.encoded, "re-encoded at the constant frame rate") }
                else if holds { entry(.copied, "every kept frame copied, timestamps retimed") }
                else {
                    entries.append(Entry(index: i, kind: kind, codec: codec, fate: .leftOut, detail: ".\(container) cannot hold \(codec) video: the export refuses",
                                         remedies: [Remedy(.container([])), Remedy(.constantRate)]))
                }
            } else if audio.contains(i) {
                let choice = AudioCodecChoice(source: parameters, container: output, aacBitRate: 0)
                // From the document (the prober's scan): `info` reads no more of a long recording.
                if let changes = source.media.streams.first(where: { $0.index == i })?.formatChanges {
                    // Copied packets would splice formats that one output stream cannot state.
                    let target = Self.displayName(choice.codec)
                    entry(.retimed, "retimed through the timeline, encoded whole as \(target) in one format (\(AudioFormatChange.declared(changes).formatName)): it changes format mid-file")
                    notes[i] = AudioFormatChange.summary(changes) + "; it is encoded whole as \(target)"
                } else if let restarts = source.media.clockRestarts, !restarts.isEmpty {
                    // As AudioTracks does: the recordings' packets overlap at each join.
                    entry(.retimed, "retimed through the timeline, encoded whole as \(Self.displayName(choice.codec)): the file's clock starts again, and its recordings' packets overlap at the join")
                } else if untouched && holds {
                    entry(.copied, "copied: the timeline leaves it untouched")
                } else if choice.splicesMovieAudio(parameters, container: output, semitones: settings?.semitones ?? 0) {
                    entry(.retimed, "retimed through the timeline: the source's own packets where the edits leave the audio unchanged, the edited stretches encoded as \(String(cString: LibAVCodec.codecName(choice.codec))) at the source's bit rate")
                } else if let why = choice.why {
                    let target = Self.displayName(choice.codec)
                    entry(.retimed, "retimed through the timeline, encoded as \(target) (\(why))")
                    notes[i] = "is encoded as \(target): \(why)"
                } else {
                    let whole = holds && choice.codec == parameters.codec_id
                        ? " (slowpoke splices AAC-LC, PCM and, in Matroska, Opus; other codecs are encoded whole)" : ""
                    entry(.retimed, "retimed through the timeline, encoded as \(String(cString: LibAVCodec.codecName(choice.codec)))\(whole)")
                }
            } else if let planned = subtitles.first(where: { $0.stream == i })?.fate {
                switch planned {
                case .copy: entry(.copied, "cues retimed through the timeline")
                case .convert(let target): entry(.copied, "cues retimed through the timeline, text converted to \(String(cString: LibAVCodec.codecName(target)))")
                case .leave(let why): entry(.leftOut, why)
                }
            } else if codec == "tmcd", let video = videoIndex, av_dict_get(input.stream(video).pointer.pointee.metadata, "timecode", nil, 0) != nil {
                let kept = output.isMatroska ? "the video's TIMECODE tag" : "a timecode track of its own"
                entry(.retimed, "the timecode, moved to the timeline's first frame, as \(kept)")
            } else if parameters.codec_type == AVMEDIA_TYPE_ATTACHMENT && output.isFullMatroska {
                entry(.copied, "copied")
            } else {
                entry(.leftOut, Self.whyNot(kind: parameters.codec_type, attachedPicture: input.stream(i).pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0))
            }
        }
        // Audio outside the video's span is cut off by the timeline: said with the stream.
        let overhangs = AudioOverhang.notes(source.media)
        self.overhangs = overhangs
        self.entries = entries.map { entry in
            overhangs[entry.index].map { Entry(index: entry.index, kind: entry.kind, codec: entry.codec, fate: entry.fate, detail: entry.detail + "; " + $0) } ?? entry
        }
        codecNotes = notes
    }

    /// A codec's name as users know it: AAC, Opus, Vorbis.
    static func displayName(_ codec: AVCodecID) -> String {
        let name = String(cString: LibAVCodec.codecName(codec))
        return ["aac": "AAC", "opus": "Opus", "vorbis": "Vorbis", "flac": "FLAC", "mp3": "MP3"][name] ?? name
    }

    /// The export's warnings before any work: one sentence for each stream left out, naming it,
    /// its index and why (the document's video is never among them: a container that cannot
    /// hold it is an error of its own), and one for each audio track whose codec changes.
    func warnings(movieName: String, input: InputFormatContext) -> [String] {
        let changed = entries.filter { $0.kind == "audio" && $0.fate == .retimed }.compactMap { entry in
            codecNotes[entry.index].map { "\(movieName) audio stream \(entry.index) (\(entry.codec)) \($0)" }
        } + overhangs.sorted { $0.key < $1.key }.map { "\(movieName) audio stream \($0.key): \($0.value)" }
        return changed + entries.filter { $0.fate == .leftOut && $0.index != videoIndex }
            .map { entry in
                var facts = [entry.kind, entry.codec]
                let metadata = input.stream(entry.index).pointer.pointee.metadata
                for key in ["language", "title", "filename"] {
                    if let found = av_dict_get(metadata, key, nil, 0), let value = found.pointee.value {
                        facts.append("\(key) \(String(cString: value))")
                    }
                }
                return "\(movieName) stream \(entry.index) (\(facts.joined(separator: ", "))) is not in the export: \(entry.detail)"
            }
    }

    /// libavcodec's name of the stream's codec, or, for a codec it does not know (a timecode or
    /// camera metadata track), the container's four-character tag.
    private static func codecName(_ parameters: AVCodecParameters) -> String {
        guard parameters.codec_id == AV_CODEC_ID_NONE, parameters.codec_tag != 0 else {
            return String(cString: LibAVCodec.codecName(parameters.codec_id))
        }
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: parameters.codec_tag >> (8 * $0)) }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// Why a stream of `kind` is not carried.
    private static func whyNot(kind: AVMediaType, attachedPicture: Bool) -> String {
        switch kind {
        case AVMEDIA_TYPE_ATTACHMENT: "only .mkv holds attachments (export to .mkv to keep it)"
        case AVMEDIA_TYPE_AUDIO: "its header names no codec, sample rate or channel count that slowpoke can decode (a damaged file?)"
        case AVMEDIA_TYPE_VIDEO where attachedPicture: "slowpoke does not carry cover art"
        case AVMEDIA_TYPE_VIDEO: "slowpoke exports one video stream"
        default: "slowpoke does not carry timed data streams"
        }
    }
}
