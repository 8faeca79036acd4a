import Composition
import Export
import Foundation
import TimePitch

/// A composition's audio track at its natural speed, read by composition frame: the input of
/// the live time-pitch engine, which then plays it at the user's rate.
///
/// Stretches at rate 1 read the movie directly. Everything else, every scaled segment and every
/// join where the source jumps (a cut, a gap's edges), is rendered once, when the composition is
/// loaded, by the offline ``TimelineRenderer`` that export uses, with enough of its neighbours
/// that the joins fade exactly as they will in the exported file, and kept in memory: a scaled
/// section of s seconds at rate r costs s / r seconds of audio, a join a few milliseconds.
final class CompositionAudio {
    let format: AudioFormat
    let frameCount: Int64
    private let reader: AudioFileReader
    private enum Content {
        case silence
        /// The source frame that plays at the piece's start.
        case source(Int64)
        case rendered([[Float]])
    }
    private struct Piece {
        let start: Int64, end: Int64
        let content: Content
    }
    private let pieces: [Piece]
    private var scratch: [[Float]]

    /// The timeline of `track` played from the movie's audio stream number `stream` (the best
    /// one when nil): every audio stream follows the same timeline, as in an export.
    init(movie: URL, track: CompositionTrack, varispeed: Bool, stream: Int? = nil) throws {
        reader = try AudioFileReader(url: movie, stream: stream)
        format = reader.format
        let renderer = TimelineRenderer(format: format, settings: try TimePitchSettings(algorithm: varispeed ? .varispeed : .timeDomain))
        renderer.ditherTimeDomainInput = !reader.hasCoarseQuantisation
        let framesPerSecond = Int32(format.sampleRate)
        let spans = try FrameSpan.spans(of: track.segments, framesPerSecond: framesPerSecond)
        let total = spans.last?.target.upperBound ?? 0
        // Neighbours rendered on each side of a region: twice a join's fade, so every fade in
        // the region is as wide as in the whole timeline.
        let margin = Int64(renderer.crossfadeWidth) * 4
        var pieces: [Piece] = []
        var position: Int64 = 0
        for region in Self.renderedRegions(spans, fade: Int64(renderer.crossfadeWidth), merging: 2 * margin, total: total) {
            pieces += Self.direct(spans, from: position, to: region.lowerBound)
            let rendered = try Self.render(region, of: track.segments, margin: margin, framesPerSecond: framesPerSecond,
                                           renderer: renderer, reader: reader)
            pieces.append(Piece(start: region.lowerBound, end: region.upperBound, content: .rendered(rendered)))
            position = region.upperBound
        }
        pieces += Self.direct(spans, from: position, to: total)
        self.pieces = pieces
        frameCount = total
        scratch = [[Float]](repeating: [Float](repeating: 0, count: 4096), count: format.channels)
    }

    /// Frames that must come from the renderer, in order: each span not played at rate 1 and
    /// each join where the source does not simply continue, `fade` frames either side; regions
    /// closer than `merging` become one.
    private static func renderedRegions(_ spans: [FrameSpan], fade: Int64, merging: Int64, total: Int64) -> [Range<Int64>] {
        var regions: [Range<Int64>] = []
        func add(_ lower: Int64, _ upper: Int64) {
            let range = max(0, lower)..<min(total, upper)
            guard !range.isEmpty else { return }
            if let last = regions.last, range.lowerBound <= last.upperBound + merging {
                regions[regions.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                regions.append(range)
            }
        }
        for (i, span) in spans.enumerated() {
            // Scaled and reversed spans are rendered whole.
            if span.source != nil, span.rate != .one || span.segment.isReversed { add(span.target.lowerBound - fade, span.target.upperBound + fade) }
            guard i + 1 < spans.count else { continue }
            let next = spans[i + 1]
            let continues = span.rate == .one && next.rate == .one && span.source != nil && span.source?.upperBound == next.source?.lowerBound
                && !span.segment.isReversed && !next.segment.isReversed
            let silent = span.source == nil && next.source == nil
            if !continues && !silent { add(next.target.lowerBound - fade, next.target.lowerBound + fade) }
        }
        return regions
    }

    /// Pieces read straight from the movie (rate 1) or silent (gaps) over `[from, to)`, which no
    /// scaled span overlaps.
    private static func direct(_ spans: [FrameSpan], from: Int64, to: Int64) -> [Piece] {
        spans.compactMap { span in
            let a = max(from, span.target.lowerBound), b = min(to, span.target.upperBound)
            guard a < b else { return nil }
            guard let source = span.source else { return Piece(start: a, end: b, content: .silence) }
            return Piece(start: a, end: b, content: .source(source.lowerBound + (a - span.target.lowerBound)))
        }
    }

    /// Output frames `region` of the timeline, rendered from the segments around it: rate-1
    /// segments and gaps trimmed to `margin` frames beyond it, scaled ones whole, laid out from a
    /// whole frame so that every position matches the full timeline's.
    private static func render(_ region: Range<Int64>, of segments: [CompositionTrackSegment], margin: Int64,
                               framesPerSecond: Int32, renderer: TimelineRenderer, reader: AudioFileReader) throws -> [[Float]] {
        func time(_ frame: Int64) -> Time { Time(value: frame, timescale: framesPerSecond) }
        func frame(_ t: Time) throws -> Int64 { try t.rescaled(to: framesPerSecond, rounding: .down).value }
        func nearest(_ t: Time) throws -> Int64 { try t.rescaled(to: framesPerSecond, rounding: .toNearestOrAwayFromZero).value }
        let low = time(max(0, region.lowerBound - margin)), high = time(region.upperBound + margin)
        var window: [CompositionTrackSegment] = []
        for segment in segments where segment.target.end > low && segment.target.start < high {
            if segment.rate != nil && segment.rate != .one || segment.isReversed { window.append(segment); continue }
            let start = max(segment.target.start, low), end = min(segment.target.end, high)
            let target = try TimeRange(start: start, end: end)
            if let source = segment.source {
                // Trimmed at a whole frame, its source starts at the very frame the whole
                // segment plays there (not at a rounding of the exact time, one frame off).
                let sourceStart = start == segment.target.start ? source.start
                    : time(try nearest(source.start) + (try nearest(start) - (try nearest(segment.target.start))))
                window.append(try CompositionTrackSegment(source: try TimeRange(start: sourceStart, duration: end - start), target: target))
            } else {
                window.append(try CompositionTrackSegment(emptyTarget: target))
            }
        }
        guard let first = window.first else { return [] }
        let origin = try frame(first.target.start)
        let shift = time(origin)
        var shifted: [CompositionTrackSegment] = []
        if first.target.start > shift { shifted.append(try CompositionTrackSegment(emptyTarget: try TimeRange(start: .zero, end: first.target.start - shift))) }
        for segment in window {
            let target = try TimeRange(start: segment.target.start - shift, end: segment.target.end - shift)
            if let source = segment.source { shifted.append(try CompositionTrackSegment(source: source, target: target, reversed: segment.isReversed)) }
            else { shifted.append(try CompositionTrackSegment(emptyTarget: target)) }
        }
        let keep = (region.lowerBound - origin)..<(region.upperBound - origin)
        var out = [[Float]](repeating: [], count: reader.format.channels)
        var written: Int64 = 0
        try renderer.render(shifted, from: reader, to: { block, count in
            let a = max(written, keep.lowerBound), b = min(written + Int64(count), keep.upperBound)
            if a < b {
                for c in out.indices { out[c].append(contentsOf: block[c][Int(a - written)..<Int(b - written)]) }
            }
            written += Int64(count)
        })
        return out
    }

    /// `count` frames from composition frame `from`; silence outside the track and in gaps.
    func read(from: Int64, count: Int) throws -> [[Float]] {
        var out = [[Float]](repeating: [Float](repeating: 0, count: count), count: format.channels)
        let end = from + Int64(count)
        var index = pieces.firstIndex { $0.end > from } ?? pieces.count
        while index < pieces.count, pieces[index].start < end {
            let piece = pieces[index]
            let a = max(from, piece.start), b = min(end, piece.end)
            let n = Int(b - a), offset = Int(a - from)
            switch piece.content {
            case .silence: break
            case .source(let sourceStart):
                if scratch[0].count < n { scratch = [[Float]](repeating: [Float](repeating: 0, count: n), count: format.channels) }
                try reader.read(at: sourceStart + (a - piece.start), count: n, into: &scratch)
                for c in out.indices { out[c].replaceSubrange(offset..<(offset + n), with: scratch[c][0..<n]) }
            case .rendered(let rendered):
                let first = Int(a - piece.start)
                for c in out.indices {
                    let available = max(0, min(n, rendered[c].count - first))
                    if available > 0 { out[c].replaceSubrange(offset..<(offset + available), with: rendered[c][first..<(first + available)]) }
                }
            }
            index += 1
        }
        return out
    }
}
