import Foundation
public import Composition
internal import CFFmpeg

/// One subtitle cue on the timeline: plain text (styling dropped, lines split at `\n`) and
/// when it shows.
public struct SubtitleCue: Sendable, Hashable {
    public let range: TimeRange
    public let text: String

    public init(range: TimeRange, text: String) {
        self.range = range
        self.text = text
    }
}

extension SubtitleCue {
    /// The cues of text subtitle stream `stream` of `movie`, retimed through a timeline of
    /// `segments` whose source time 0 is the movie's `origin`, exactly as export retimes them
    /// (see ``SourceMapping``): a cue in a removed range is dropped, one crossing a cut is
    /// clipped at it, one in a scaled range stretches with it. In timeline order.
    ///
    /// A cue without a length shows until the next one starts, for at most 5 s.
    public static func read(movie: URL, stream: Int, segments: [CompositionTrackSegment],
                            origin: Time) throws(MediaError) -> [SubtitleCue] {
        let display = movie.lastPathComponent
        let input = try InputFormatContext(path: movie.path)
        guard stream < input.streamCount, input.stream(stream).parameters.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE else {
            throw .notMedia(path: movie.path, reason: "stream \(stream) is not subtitles")
        }
        input.readOnly(stream: stream)
        let decoder = try CodecContext.decoder(for: input.stream(stream))
        let base = input.stream(stream).pointer.pointee.time_base
        let packet = try Packet()
        // In source time: start, end (nil: until the next), text.
        var found: [(start: Time, end: Time?, text: String)] = []
        while try input.read(into: packet) {
            let p = packet.pointer
            guard Int(p.pointee.stream_index) == stream, p.pointee.pts != sp_av_nopts_value() else { continue }
            var subtitle = AVSubtitle()
            var got: Int32 = 0
            let decoded = LibAVCodec.decodeSubtitle(decoder.pointer, &subtitle, &got, p)
            guard decoded >= 0 else { throw .av(path: display, AVFailure(code: decoded, operation: "reading a subtitle")) }
            guard got != 0 else { continue }
            defer { LibAVCodec.freeSubtitle(&subtitle) }
            var lines: [String] = []
            for r in 0..<Int(subtitle.num_rects) {
                guard let rect = subtitle.rects[r]?.pointee else { continue }
                if rect.type == SUBTITLE_ASS, let ass = rect.ass { lines.append(plainText(ass: String(cString: ass))) }
                else if rect.type == SUBTITLE_TEXT, let text = rect.text { lines.append(String(cString: text)) }
            }
            let text = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            func time(_ ticks: Int64) -> Time? {
                try? Time(value: ticks, timescale: 1).multiplied(by: Rational(Int64(base.num), Int64(base.den))) - origin
            }
            guard let start = time(p.pointee.pts) else { continue }
            var end: Time?
            if p.pointee.duration > 0 { end = time(p.pointee.pts + p.pointee.duration) }
            else if subtitle.end_display_time > 0 && subtitle.end_display_time != UInt32.max {
                end = try? start + Time(value: Int64(subtitle.end_display_time), timescale: 1000)
            }
            // An empty cue (mov_text's gaps, a bitmap track's clear) still ends the one before.
            found.append((start, end, text))
        }
        found.sort { $0.start < $1.start }
        var cues: [SubtitleCue] = []
        for (k, cue) in found.enumerated() where !cue.text.isEmpty {
            let limit = (try? cue.start + .seconds(5)) ?? cue.start
            let next = k + 1 < found.count ? found[k + 1].start : limit
            let end = cue.end ?? min(next, limit)
            guard end > cue.start, let range = try? TimeRange(start: cue.start, end: end) else { continue }
            for piece in SourceMapping.compositionRanges(of: range, in: segments) {
                cues.append(SubtitleCue(range: piece, text: cue.text))
            }
        }
        cues.sort { $0.range.start < $1.range.start }
        return cues
    }

    /// The text of an ASS event (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`,
    /// as libavcodec decodes every text codec): its Text field without `{…}` overrides, `\N`
    /// and `\n` as line breaks, `\h` as a space.
    package static func plainText(ass: String) -> String {
        var fields = 0
        var index = ass.startIndex
        while fields < 8, let comma = ass[index...].firstIndex(of: ",") {
            fields += 1
            index = ass.index(after: comma)
        }
        var text = fields == 8 ? String(ass[index...]) : ass
        while let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}") {
            text.removeSubrange(open...close)
        }
        return text.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\h", with: " ")
    }
}
