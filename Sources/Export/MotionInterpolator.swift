import Composition
internal import CFFmpeg

/// Motion-compensated in-between frames for slowed segments, from libavfilter's
/// `minterpolate`. Each slowed segment gets its own filter graph, fed with the segment's source
/// pictures (frames, or deinterlaced fields) placed at their composition times; the filter's
/// output frame k (time base 1/N) is output frame k of the export.
final class MotionInterpolator {
    private let track: CompositionTrack
    private let pictures: PictureTimes
    private let fps: Rational
    private let source: any PictureSource
    private let encoder: FrameEncoder
    private var graph: Graph?

    /// Input ticks per output frame: fine enough that source pictures keep their place.
    private static let subdivision: Int64 = 120

    init(track: CompositionTrack, pictures: PictureTimes, fps: Rational, source: any PictureSource, encoder: FrameEncoder) throws {
        guard encoder.pixelFormat == AV_PIX_FMT_YUV420P else {
            throw ExportError.unsupported("--frames interpolate works on 8-bit video; use --frames blend for 10-bit HEVC")
        }
        _ = try AVFilterLibrary.shared.get()
        self.track = track
        self.pictures = pictures
        self.fps = fps
        self.source = source
        self.encoder = encoder
    }

    /// Output frame `k`, interpolated inside `segment`; nil if the filter made none for it.
    func frame(_ k: Int, segment: Int) throws -> Frame? {
        if graph?.segment != segment {
            graph = try makeGraph(segment: segment)
        }
        guard let graph else { return nil }
        while true {
            if let made = graph.outputs.removeValue(forKey: Int64(k)) {
                for key in graph.outputs.keys where key < Int64(k) { graph.outputs[key] = nil }
                return made
            }
            if graph.outputs.keys.contains(where: { $0 > Int64(k) }) || graph.ended { return nil }
            try feed(graph)
        }
    }

    private final class Graph {
        let filter: FilterGraph
        let segment: Int
        var next: Int
        let last: Int
        var ended = false
        var outputs: [Int64: Frame] = [:]

        init(filter: FilterGraph, segment: Int, first: Int, last: Int) {
            self.filter = filter
            self.segment = segment
            self.next = first
            self.last = last
        }
    }

    private func makeGraph(segment index: Int) throws -> Graph? {
        let segment = track.segments[index]
        guard let range = segment.source else { return nil }
        let sar = encoder.context.pointer.pointee.sample_aspect_ratio
        let arguments = "video_size=\(encoder.width)x\(encoder.height):pix_fmt=\(AV_PIX_FMT_YUV420P.rawValue)"
            + ":time_base=\(fps.denominator)/\(fps.numerator * Self.subdivision)"
            + ":pixel_aspect=\(max(sar.num, 1))/\(max(sar.den, 1))"
        let description = "minterpolate=fps=\(fps.numerator)/\(fps.denominator):mi_mode=mci:mc_mode=aobmc:me_mode=bidir"
        let filter = try FilterGraph(chain: description, filter: "minterpolate", input: arguments, work: "interpolating")
        let first = pictures.picture(at: range.start)
        let last = min(pictures.count - 1, pictures.picture(at: range.end) + 2)
        return Graph(filter: filter, segment: index, first: first, last: last)
    }

    /// Gives the filter one more source picture (or the end), then collects what it made.
    private func feed(_ graph: Graph) throws {
        let segment = track.segments[graph.segment]
        if graph.next <= graph.last {
            let f = graph.next
            graph.next += 1
            let picture = try encoder.converted(source.picture(f))
            source.release(before: f - 6)
            // The picture's composition time, extending the segment's mapping past its end.
            guard let range = segment.source, let rate = segment.rate else { graph.ended = true; return }
            let at = try segment.target.start + (pictures.times[f] - range.start).multiplied(by: rate.reciprocal)
            let ticks = try at.multiplied(by: fps).multiplied(by: try Rational(Self.subdivision))
            try graph.filter.add(picture, pts: try ticks.rescaled(to: 1).value)
        } else {
            try graph.filter.add(nil)
            graph.ended = true
        }
        while let out = try graph.filter.next() {
            graph.outputs[out.pointer.pointee.pts] = out
        }
    }
}
