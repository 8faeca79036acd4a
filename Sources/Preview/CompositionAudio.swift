import Composition
import Export
import Foundation
import TimePitch

/// A composition's audio track at its natural speed, read by composition frame: the input of
/// the live time-pitch engine, which then plays it at the user's rate.
///
/// Segments at rate 1 read the movie directly. Scaled segments are rendered once, when the
/// composition is loaded, by the offline ``TimelineRenderer`` (pitch kept, or following the
/// rate under varispeed) and kept in memory; a scaled section of s seconds at rate r costs
/// s / r seconds of audio.
final class CompositionAudio {
    let format: AudioFormat
    let frameCount: Int64
    private let reader: AudioFileReader
    private struct Piece {
        let start: Int64, end: Int64
        /// Source frame of `start`, for rate-1 pieces.
        let sourceStart: Int64?
        /// Rendered audio, for scaled pieces.
        let rendered: [[Float]]?
    }
    private let pieces: [Piece]
    private var scratch: [[Float]]

    init(movie: URL, track: CompositionTrack, varispeed: Bool) throws {
        reader = try AudioFileReader(url: movie)
        format = reader.format
        let rate = Int32(format.sampleRate)
        func frames(_ t: Time) throws -> Int64 { try t.rescaled(to: rate, rounding: .toNearestOrAwayFromZero).value }
        let renderer = TimelineRenderer(format: format, settings: try TimePitchSettings(algorithm: varispeed ? .varispeed : .timeDomain))
        renderer.ditherTimeDomainInput = !reader.hasCoarseQuantisation
        var pieces: [Piece] = []
        for segment in track.segments {
            let start = try frames(segment.target.start), end = try frames(segment.target.end)
            guard end > start else { continue }
            guard let source = segment.source, let segmentRate = segment.rate else {
                pieces.append(Piece(start: start, end: end, sourceStart: nil, rendered: nil))
                continue
            }
            if segmentRate == .one {
                pieces.append(Piece(start: start, end: end, sourceStart: try frames(source.start), rendered: nil))
                continue
            }
            let alone = try CompositionTrackSegment(source: source, target: TimeRange(start: .zero, duration: segment.target.duration))
            var out = [[Float]](repeating: [], count: format.channels)
            try renderer.render([alone], from: reader, to: { block, count in
                for c in out.indices { out[c].append(contentsOf: block[c][0..<count]) }
            })
            pieces.append(Piece(start: start, end: end, sourceStart: nil, rendered: out))
        }
        self.pieces = pieces
        frameCount = pieces.last?.end ?? 0
        scratch = [[Float]](repeating: [Float](repeating: 0, count: 4096), count: format.channels)
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
            if let sourceStart = piece.sourceStart {
                if scratch[0].count < n { scratch = [[Float]](repeating: [Float](repeating: 0, count: n), count: format.channels) }
                try reader.read(at: sourceStart + (a - piece.start), count: n, into: &scratch)
                for c in out.indices { out[c].replaceSubrange(offset..<(offset + n), with: scratch[c][0..<n]) }
            } else if let rendered = piece.rendered {
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
