import Foundation
internal import CFFmpeg

/// An owned libavfilter graph with one video input (`buffer`) and one output (`buffersink`)
/// around a chain of filters such as `bwdif=…`. Frames go in with the
/// timestamps the caller gives them and come out in the order the chain makes them.
package final class FilterGraph {
    private let library: AVFilterLibrary
    private let pointer: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// What the chain does, for errors, such as "deinterlacing".
    private let work: String

    /// The `input` that describes pictures like `frame`: its size, pixel format and sample
    /// aspect ratio (1:1 when it has none), at `timeBase`.
    package static func input(like frame: Frame, timeBase: String = "1/90000") -> String {
        let f = frame.pointer.pointee
        let sar = f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        return "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=\(timeBase):pixel_aspect=\(sar.num)/\(sar.den)"
    }

    /// A graph running `chain` (named `filter` in errors) on input pictures described by
    /// `input`: `video_size=WxH:pix_fmt=N:time_base=a/b:pixel_aspect=c/d`.
    package init(chain: String, filter: String, input arguments: String, work: String) throws {
        let lib = try AVFilterLibrary.shared.get()
        guard let graph = lib.graphAlloc() else {
            throw MediaError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a filter graph"))
        }
        var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
        var handedOver = false
        defer { if !handedOver { lib.graphFree(&owned) } }
        var source: UnsafeMutablePointer<AVFilterContext>?
        var sink: UnsafeMutablePointer<AVFilterContext>?
        var result = lib.graphCreateFilter(&source, lib.getByName("buffer"), "in", arguments, nil, graph)
        guard result >= 0, let source else { throw MediaError.libav(AVFailure(code: result, operation: "creating the filter input")) }
        result = lib.graphCreateFilter(&sink, lib.getByName("buffersink"), "out", nil, nil, graph)
        guard result >= 0, let sink else { throw MediaError.libav(AVFailure(code: result, operation: "creating the filter output")) }
        var outputs = lib.inOutAlloc()
        var inputs = lib.inOutAlloc()
        defer { lib.inOutFree(&outputs); lib.inOutFree(&inputs) }
        outputs!.pointee.name = av_strdup("in")
        outputs!.pointee.filter_ctx = source
        inputs!.pointee.name = av_strdup("out")
        inputs!.pointee.filter_ctx = sink
        result = lib.graphParse(graph, chain, &inputs, &outputs, nil)
        guard result >= 0 else { throw MediaError.libav(AVFailure(code: result, operation: "setting up \(filter)")) }
        result = lib.graphConfig(graph, nil)
        guard result >= 0 else { throw MediaError.libav(AVFailure(code: result, operation: "configuring \(filter)")) }
        handedOver = true
        library = lib
        pointer = graph
        self.source = source
        self.sink = sink
        self.work = work
    }

    deinit {
        var graph: UnsafeMutablePointer<AVFilterGraph>? = pointer
        library.graphFree(&graph)
    }

    /// Gives the chain a reference to `frame`'s picture, stamped `pts`; nil ends the input.
    /// `progressive` hands the frame over as progressive, whatever it was coded as.
    package func add(_ frame: Frame?, pts: Int64 = 0, progressive: Bool = false) throws {
        guard let frame else {
            _ = library.sourceAddFrame(source, nil)
            return
        }
        guard let copy = av_frame_clone(frame.pointer) else {
            throw MediaError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "copying a frame"))
        }
        var owned: UnsafeMutablePointer<AVFrame>? = copy
        defer { av_frame_free(&owned) }
        copy.pointee.pts = pts
        if progressive { copy.pointee.interlaced_frame = 0 }
        let added = library.sourceAddFrame(source, copy)
        guard added >= 0 else { throw MediaError.libav(AVFailure(code: added, operation: work)) }
    }

    /// The next picture the chain made, or nil when it needs more input (or has ended).
    package func next() throws -> Frame? {
        let out = try Frame()
        let got = library.sinkGetFrame(sink, out.pointer)
        if got == sp_averror_eagain() || got == sp_averror_eof() { return nil }
        guard got >= 0 else { throw MediaError.libav(AVFailure(code: got, operation: work)) }
        return out
    }
}
