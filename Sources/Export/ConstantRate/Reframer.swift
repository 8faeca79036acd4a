import Foundation
internal import CFFmpeg
import Media

/// Applies a ``Reframing`` to decoded pictures through libavfilter: `crop` (exact, to the
/// pixel), then for a zoom `scale` with libswscale's Lanczos, accurate rounding and full
/// chroma interpolation. The graph is made for the first picture's size and format, and made
/// again when a stream changes them mid-file.
final class Reframer {
    let geometry: Reframing.Geometry
    private var graph: FilterGraph?
    private var input: (width: Int32, height: Int32, format: Int32)?
    private var pts: Int64 = 0

    init(_ geometry: Reframing.Geometry) {
        self.geometry = geometry
    }

    func apply(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        if graph == nil || input.map({ $0 != (f.width, f.height, f.format) }) ?? true {
            let g = geometry
            var chain = "crop=\(g.width):\(g.height):\(g.x):\(g.y):exact=1"
            if g.scales { chain += ",scale=\(g.outputWidth):\(g.outputHeight):flags=lanczos+accurate_rnd+full_chroma_int" }
            graph = try FilterGraph(chain: chain, filter: "the crop", input: FilterGraph.input(like: frame), work: "cropping a picture")
            input = (f.width, f.height, f.format)
        }
        pts += 1
        try graph!.add(frame, pts: pts)
        guard let out = try graph!.next() else { throw ExportError.unsupported("cropping a picture gave no picture") }
        // The timestamps and flags of the source picture (HDR side data stays with the frame).
        return out
    }
}
