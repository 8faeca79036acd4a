import CFFmpeg
@testable import Media
import Testing

/// Media opens libavfilter at run time (see AVFilterLibrary). This test target links it, so
/// each function type must accept the header's declaration (checked when this compiles), and
/// each looked-up function must be the very one the linker binds.
@Suite struct AVFilterLibraryTests {
    func address<F>(_ function: F) -> UnsafeRawPointer { unsafeBitCast(function, to: UnsafeRawPointer.self) }

    @Test func theOpenedFunctionsAreTheDeclaredOnes() throws {
        let library = try AVFilterLibrary.shared.get()
        let getByName: AVFilterLibrary.GetByName = avfilter_get_by_name
        let graphAlloc: AVFilterLibrary.GraphAlloc = avfilter_graph_alloc
        let graphFree: AVFilterLibrary.GraphFree = avfilter_graph_free
        let graphCreateFilter: AVFilterLibrary.GraphCreateFilter = avfilter_graph_create_filter
        let graphParse: AVFilterLibrary.GraphParse = avfilter_graph_parse_ptr
        let graphConfig: AVFilterLibrary.GraphConfig = avfilter_graph_config
        let inOutAlloc: AVFilterLibrary.InOutAlloc = avfilter_inout_alloc
        let inOutFree: AVFilterLibrary.InOutFree = avfilter_inout_free
        let sourceAddFrame: AVFilterLibrary.FrameCall = av_buffersrc_add_frame
        let sinkGetFrame: AVFilterLibrary.FrameCall = av_buffersink_get_frame
        #expect(address(library.getByName) == address(getByName))
        #expect(address(library.graphAlloc) == address(graphAlloc))
        #expect(address(library.graphFree) == address(graphFree))
        #expect(address(library.graphCreateFilter) == address(graphCreateFilter))
        #expect(address(library.graphParse) == address(graphParse))
        #expect(address(library.graphConfig) == address(graphConfig))
        #expect(address(library.inOutAlloc) == address(inOutAlloc))
        #expect(address(library.inOutFree) == address(inOutFree))
        #expect(address(library.sourceAddFrame) == address(sourceAddFrame))
        #expect(address(library.sinkGetFrame) == address(sinkGetFrame))
        #expect(library.getByName("bwdif") != nil)
    }
}
