import Composition
import Foundation
import TimePitch
import Media

/// A composition's audio track at its natural speed, read by composition frame: the input of
/// the live time-pitch engine, which then plays it at the user's rate.
///
/// Stretches at rate 1 read the movie directly. Everything else, every scaled segment and every
/// join where the source jumps (a cut, a gap's edges), is rendered once, when the composition is
/// loaded, by the offline ``TimelineRenderer`` that export uses, rendering only that range of
/// the whole track (so the joins fade exactly as they will in the exported file), and kept in memory: a scaled
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
        // Regions closer than this are rendered as one.
        let margin = Int64(renderer.crossfadeWidth) * 4
        var pieces: [Piece] = []
        var position: Int64 = 0
        for region in Self.renderedRegions(spans, fade: Int64(renderer.crossfadeWidth), merging: 2 * margin, total: total) {
            pieces += Self.direct(spans, from: position, to: region.lowerBound)
            let rendered = try Self.render(region, of: track.segments, renderer: renderer, reader: reader)
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

    /// Output frames `region` of the timeline, rendered by the export's own code path: the
    /// renderer's range render, which renders each segment reaching into `region` exactly as in
    /// the whole track (its own source range, its padding past its edges, its joins' fades), so
    /// every frame equals the export's.
    private static func render(_ region: Range<Int64>, of segments: [CompositionTrackSegment],
                               renderer: TimelineRenderer, reader: AudioFileReader) throws -> [[Float]] {
        var out = [[Float]](repeating: [], count: reader.format.channels)
        try renderer.render(segments, from: reader, range: region, to: { block, count in
            for c in out.indices { out[c].append(contentsOf: block[c][0..<count]) }
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
