import Composition
internal import CFFmpeg

/// Motion-compensated in-between frames for slowed segments, from libavfilter's
/// `minterpolate`. Each slowed segment gets its own filter graph, fed with the segment's source
/// frames placed at their composition times; the filter's output frame k (time base 1/N) is
/// output frame k of the export.
final class MotionInterpolator {
    private let track: CompositionTrack
    private let scan: VideoScan
    private let fps: Rational
    private let decoder: FrameDecoder
    private let encoder: FrameEncoder
    private let library: AVFilterLibrary
    private var graph: Graph?

    /// Input ticks per output frame: fine enough that source frames keep their place.
    private static let subdivision: Int64 = 120

    init(track: CompositionTrack, scan: VideoScan, fps: Rational, decoder: FrameDecoder, encoder: FrameEncoder) throws {
        guard encoder.pixelFormat == AV_PIX_FMT_YUV420P else {
            throw ExportError.unsupported("--frames interpolate works on 8-bit video; use --frames blend for 10-bit HEVC")
        }
        library = try AVFilterLibrary.shared.get()
        self.track = track
        self.scan = scan
        self.fps = fps
        self.decoder = decoder
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
        let library: AVFilterLibrary
        let segment: Int
        let pointer: UnsafeMutablePointer<AVFilterGraph>
        let source: UnsafeMutablePointer<AVFilterContext>
        let sink: UnsafeMutablePointer<AVFilterContext>
        var next: Int
        let last: Int
        var ended = false
        var outputs: [Int64: Frame] = [:]

        init(library: AVFilterLibrary, segment: Int, pointer: UnsafeMutablePointer<AVFilterGraph>, source: UnsafeMutablePointer<AVFilterContext>,
             sink: UnsafeMutablePointer<AVFilterContext>, first: Int, last: Int) {
            self.library = library
            self.segment = segment
            self.pointer = pointer
            self.source = source
            self.sink = sink
            self.next = first
            self.last = last
        }

        deinit {
            var graph: UnsafeMutablePointer<AVFilterGraph>? = pointer
            library.graphFree(&graph)
        }
    }

    private func makeGraph(segment index: Int) throws -> Graph? {
        let segment = track.segments[index]
        guard let range = segment.source else { return nil }
        let lib = library
        guard let graph = lib.graphAlloc() else {
            throw ExportError.av(path: "", AVFailure(code: sp_averror(ENOMEM), operation: "allocating a filter graph"))
        }
        var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
        var handedOver = false
        defer { if !handedOver { lib.graphFree(&owned) } }
        let sar = encoder.context.pointer.pointee.sample_aspect_ratio
        let arguments = "video_size=\(encoder.width)x\(encoder.height):pix_fmt=\(AV_PIX_FMT_YUV420P.rawValue)"
            + ":time_base=\(fps.denominator)/\(fps.numerator * Self.subdivision)"
            + ":pixel_aspect=\(max(sar.num, 1))/\(max(sar.den, 1))"
        var source: UnsafeMutablePointer<AVFilterContext>?
        var sink: UnsafeMutablePointer<AVFilterContext>?
        var result = lib.graphCreateFilter(&source, lib.getByName("buffer"), "in", arguments, nil, graph)
        guard result >= 0, let source else { throw ExportError.av(path: "", AVFailure(code: result, operation: "creating the filter input")) }
        result = lib.graphCreateFilter(&sink, lib.getByName("buffersink"), "out", nil, nil, graph)
        guard result >= 0, let sink else { throw ExportError.av(path: "", AVFailure(code: result, operation: "creating the filter output")) }
        let description = "minterpolate=fps=\(fps.numerator)/\(fps.denominator):mi_mode=mci:mc_mode=aobmc:me_mode=bidir"
        var outputs = lib.inOutAlloc()
        var inputs = lib.inOutAlloc()
        defer { lib.inOutFree(&outputs); lib.inOutFree(&inputs) }
        outputs!.pointee.name = av_strdup("in")
        outputs!.pointee.filter_ctx = source
        inputs!.pointee.name = av_strdup("out")
        inputs!.pointee.filter_ctx = sink
        result = lib.graphParse(graph, description, &inputs, &outputs, nil)
        guard result >= 0 else { throw ExportError.av(path: "", AVFailure(code: result, operation: "setting up minterpolate")) }
        result = lib.graphConfig(graph, nil)
        guard result >= 0 else { throw ExportError.av(path: "", AVFailure(code: result, operation: "configuring minterpolate")) }
        handedOver = true
        let first = scan.frame(at: range.start)
        let last = min(scan.frameCount - 1, scan.frame(at: range.end) + 2)
        return Graph(library: lib, segment: index, pointer: graph, source: source, sink: sink, first: first, last: last)
    }

    /// Gives the filter one more source frame (or the end), then collects what it made.
    private func feed(_ graph: Graph) throws {
        let segment = track.segments[graph.segment]
        if graph.next <= graph.last {
            let f = graph.next
            graph.next += 1
            let picture = try encoder.converted(decoder.frame(f))
            decoder.release(before: f - 6)
            guard let copy = av_frame_clone(picture.pointer) else {
                throw ExportError.av(path: "", AVFailure(code: sp_averror(ENOMEM), operation: "copying a frame"))
            }
            var owned: UnsafeMutablePointer<AVFrame>? = copy
            defer { av_frame_free(&owned) }
            // The frame's composition time, extending the segment's mapping past its end.
            guard let range = segment.source, let rate = segment.rate else { graph.ended = true; return }
            let at = try segment.target.start + (scan.presentationTimes[f] - range.start).multiplied(by: rate.reciprocal)
            let ticks = try at.multiplied(by: fps).multiplied(by: try Rational(Self.subdivision))
            copy.pointee.pts = try ticks.rescaled(to: 1).value
            let added = library.sourceAddFrame(graph.source, copy)
            guard added >= 0 else { throw ExportError.av(path: "", AVFailure(code: added, operation: "interpolating")) }
        } else {
            _ = library.sourceAddFrame(graph.source, nil)
            graph.ended = true
        }
        while true {
            let out = try Frame()
            let got = library.sinkGetFrame(graph.sink, out.pointer)
            if got == sp_averror_eagain() || got == sp_averror_eof() { break }
            guard got >= 0 else { throw ExportError.av(path: "", AVFailure(code: got, operation: "interpolating")) }
            graph.outputs[out.pointer.pointee.pts] = out
        }
    }
}
