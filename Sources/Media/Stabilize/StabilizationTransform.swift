import Foundation
internal import CFFmpeg

/// vidstabtransform over a kept analysis (``StabilizationAnalysis``), fed source pictures in
/// order. vidstabtransform gives the n-th picture it is fed the n-th transform of the analysis
/// (it reads no timestamp), so picture ``next`` is the only one it can take; ``restart()``
/// starts again from picture 0 (a new graph) for an earlier one. The export's
/// `StabilizedPictures` and the preview's steadied video both go through this one class.
package final class StabilizationTransform {
    private let chain: String
    private var graph: FilterGraph?
    /// The source picture the transform takes next.
    package private(set) var next = 0
    /// How many times the transform started again from picture 0.
    package private(set) var restarts = 0

    package init(_ stabilization: Stabilization, analysis: URL, interpolation: Stabilization.Interpolation = .bicubic) {
        chain = stabilization.transformChain(analysis.path, interpolation: interpolation)
    }

    /// Forgets the pictures fed: the next one must be source picture 0.
    package func restart() {
        graph = nil
        next = 0
        restarts += 1
    }

    /// Source picture ``next``, steadied (and ``next`` moves on).
    package func steady(_ frame: Frame) throws -> Frame {
        if graph == nil {
            graph = try FilterGraph(chain: chain, filter: "the stabilization", input: FilterGraph.input(like: frame),
                                    work: "steadying a picture")
        }
        try graph!.add(frame, pts: Int64(next))
        guard let out = try graph!.next() else { throw MediaError.unsupported("steadying picture \(next) gave no picture") }
        next += 1
        return out
    }
}
