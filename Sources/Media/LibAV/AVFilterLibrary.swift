import Foundation
internal import CFFmpeg

/// libavfilter, opened on first use instead of linked. Only the `--fps` export of interlaced
/// video (`bwdif`) needs it, while loading it with its hundred dependencies (speech-synthesis voices, Vulkan,
/// LV2 …) cost every slowpoke command about 30 ms at start-up, more than all other libraries
/// but libavcodec together. The function types are those of the C declarations; a test linked
/// against libavfilter checks each one against its header.
package struct AVFilterLibrary: @unchecked Sendable {
    // @unchecked: immutable C function pointers into a library that is never closed.
    typealias GetByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias GraphAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias GraphCreateFilter = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
                                                  UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                                  UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    typealias GraphParse = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?,
                                           UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                           UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    typealias GraphConfig = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias InOutAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterInOut>?
    typealias InOutFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?) -> Void
    typealias FrameCall = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32

    let getByName: GetByName
    let graphAlloc: GraphAlloc
    let graphFree: GraphFree
    let graphCreateFilter: GraphCreateFilter
    let graphParse: GraphParse
    let graphConfig: GraphConfig
    let inOutAlloc: InOutAlloc
    let inOutFree: InOutFree
    /// `av_buffersrc_add_frame` and `av_buffersink_get_frame`.
    let sourceAddFrame: FrameCall
    let sinkGetFrame: FrameCall

    /// The library, loaded once; or why it cannot be.
    package static let shared = Result { () throws(MediaError) in try AVFilterLibrary() }

    /// The library's file: the major version the headers describe.
    static let fileName = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"

    private init() throws(MediaError) {
        let library = try SharedLibrary(Self.fileName, cannotLoad: {
            "deinterlacing needs libavfilter (\(Self.fileName)), which cannot be loaded: \($0)"
        }, missingNote: "; deinterlacing is unavailable")
        func symbol<F>(_ name: String, as type: F.Type) throws(MediaError) -> F {
            try library.symbol(name, as: type)
        }
        getByName = try symbol("avfilter_get_by_name", as: GetByName.self)
        graphAlloc = try symbol("avfilter_graph_alloc", as: GraphAlloc.self)
        graphFree = try symbol("avfilter_graph_free", as: GraphFree.self)
        graphCreateFilter = try symbol("avfilter_graph_create_filter", as: GraphCreateFilter.self)
        graphParse = try symbol("avfilter_graph_parse_ptr", as: GraphParse.self)
        graphConfig = try symbol("avfilter_graph_config", as: GraphConfig.self)
        inOutAlloc = try symbol("avfilter_inout_alloc", as: InOutAlloc.self)
        inOutFree = try symbol("avfilter_inout_free", as: InOutFree.self)
        sourceAddFrame = try symbol("av_buffersrc_add_frame", as: FrameCall.self)
        sinkGetFrame = try symbol("av_buffersink_get_frame", as: FrameCall.self)
    }
}
