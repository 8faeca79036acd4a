import Foundation
import Composition
internal import CFFmpeg
import Media

/// Every subtitle track of an exported movie, retimed through the timeline exactly as the
/// frames are (see ``SourceMapping``): a cue in a removed range is dropped, one crossing a cut
/// is clipped at it, one in a scaled range stretches with it. A cue without a length (bitmap
/// subtitles show until the next one) moves to where its source time plays, or to the cut.
///
/// Text is copied when the container holds the codec, and otherwise converted (mp4 and mov
/// hold mov_text, Matroska SRT, ASS and WebVTT). Bitmap subtitles the container cannot hold
/// are left out with a warning (see ``plan(_:container:)``).
///
/// Cues are read, retimed and kept in memory when the export starts: a film's subtitles are a
/// few hundred kilobytes of text.
final class SubtitleTracks {
    /// What an export does with a subtitle stream.
    enum Fate: Equatable {
        case copy
        case convert(to: AVCodecID)
        case leave(why: String)
    }

    /// Output time base of every subtitle track: milliseconds, Matroska's clock.
    static let timeBase = AVRational(num: 1, den: 1000)

    private struct Track {
        let source: StreamView
        let converter: SubtitleConverter?
        var output: UnsafeMutablePointer<AVStream>?
    }
    private var tracks: [Track] = []
    /// Every retimed cue of every track, in output order: its track and packet (in ``timeBase``).
    private var cues: [(track: Int, packet: Packet)] = []
    private var next = 0

    /// What `container` does with each subtitle stream of `input`, by stream number.
    static func plan(_ input: InputFormatContext, container: Container) -> [(stream: Int, fate: Fate)] {
        guard container.format != nil else { return [] }
        var plan: [(Int, Fate)] = []
        for i in 0..<input.streamCount where input.stream(i).parameters.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE {
            let codec = input.stream(i).parameters.pointee.codec_id
            let name = String(cString: LibAVCodec.codecName(codec))
            let text = (LibAVCodec.descriptor(codec)?.pointee.props ?? 0) & AV_CODEC_PROP_TEXT_SUB != 0
            let target = container.isWebM ? AV_CODEC_ID_WEBVTT : container.isMatroska ? AV_CODEC_ID_SUBRIP : AV_CODEC_ID_MOV_TEXT
            if container.holds(codec) {
                plan.append((i, .copy))
            } else if codec == AV_CODEC_ID_NONE || LibAVCodec.findDecoder(codec) == nil {
                plan.append((i, .leave(why: "slowpoke cannot read \(name) subtitles")))
            } else if text {
                plan.append((i, .convert(to: target)))
            } else {
                plan.append((i, .leave(why: "\(container.displayName) cannot hold \(name) subtitles (export to .mkv to keep them)")))
            }
        }
        return plan
    }

    /// Reads and retimes the subtitle streams of `movie` that `plan` carries, for a timeline
    /// of `segments` whose source time 0 is the movie's `origin`.
    init(movie: URL, plan: [(stream: Int, fate: Fate)], segments: [CompositionTrackSegment], origin: Time,
         globalHeader: Bool, display: String, warning: (String) -> Void) throws {
        let carried = plan.filter { if case .leave = $0.fate { false } else { true } }
        guard !carried.isEmpty else { return }
        let input = try InputFormatContext(path: movie.path)
        var trackOf: [Int: Int] = [:]
        for (stream, fate) in carried {
            var converter: SubtitleConverter?
            if case .convert(let target) = fate {
                converter = try SubtitleConverter(stream: input.stream(stream), target: target, timeBase: Self.timeBase,
                                                  globalHeader: globalHeader, display: display)
            }
            trackOf[stream] = tracks.count
            tracks.append(Track(source: input.stream(stream), converter: converter))
        }
        for i in 0..<input.streamCount where trackOf[i] == nil { input.stream(i).pointer.pointee.discard = AVDISCARD_ALL }

        let packet = try Packet()
        while try input.read(into: packet) {
            guard let k = trackOf[Int(packet.pointer.pointee.stream_index)] else { continue }
            let p = packet.pointer
            guard p.pointee.pts != sp_av_nopts_value() else { continue }
            let base = tracks[k].source.pointer.pointee.time_base
            func time(_ ticks: Int64) throws -> Time {
                try Time(value: ticks, timescale: 1).multiplied(by: Rational(Int64(base.num), Int64(base.den))) - origin
            }
            let start = try time(p.pointee.pts)
            var pieces: [(Int64, Int64)] = []
            if p.pointee.duration > 0 {
                for range in SourceMapping.compositionRanges(of: try TimeRange(start: start, end: time(p.pointee.pts + p.pointee.duration)), in: segments) {
                    let from = try range.start.rescaled(to: Self.timeBase.den).value
                    let to = try range.end.rescaled(to: Self.timeBase.den).value
                    if to > from { pieces.append((from, to - from)) }
                }
            } else if let at = SourceMapping.compositionTime(atOrAfter: start, in: segments) {
                pieces.append((try at.rescaled(to: Self.timeBase.den).value, 0))
            }
            for (from, duration) in pieces {
                let cue = try Packet()
                guard LibAVCodec.packetRef(cue.pointer, p) >= 0 else { continue }
                cue.pointer.pointee.pts = from
                cue.pointer.pointee.dts = from
                cue.pointer.pointee.duration = duration
                cue.pointer.pointee.pos = -1
                if let converter = tracks[k].converter, try !converter.convert(cue.pointer) { continue }
                cues.append((k, cue))
            }
        }
        cues.sort { $0.packet.pointer.pointee.pts < $1.packet.pointer.pointee.pts }
    }

    /// Adds every track's output stream, with its source's language, title and disposition.
    func attach(to writer: MovieWriter) throws {
        for k in tracks.indices {
            let source = tracks[k].source
            if let converter = tracks[k].converter {
                let stream = try writer.addStream(encoder: converter.encoder)
                stream.pointee.disposition = source.pointer.pointee.disposition
                av_dict_copy(&stream.pointee.metadata, source.pointer.pointee.metadata, 0)
                tracks[k].output = stream
            } else {
                tracks[k].output = try writer.addStream(copying: source, timeBase: Self.timeBase)
            }
        }
    }

    /// Writes every cue that starts before `dts` (in `base`).
    func pump(upTo dts: Int64, in base: AVRational, writer: MovieWriter) throws {
        while next < cues.count {
            let (k, cue) = cues[next]
            let p = cue.pointer
            if av_compare_ts(p.pointee.pts, Self.timeBase, dts, base) > 0 { return }
            p.pointee.stream_index = tracks[k].output!.pointee.index
            LibAVCodec.packetRescaleTS(p, Self.timeBase, tracks[k].output!.pointee.time_base)
            try writer.write(p)
            next += 1
        }
    }

    /// Writes the cues that are left.
    func finish(writer: MovieWriter) throws {
        try pump(upTo: Int64.max / 4, in: AVRational(num: 1, den: 1), writer: writer)
    }
}
