import Foundation
internal import CFFmpeg
import Media

/// The source's pictures steadied by vidstabtransform. vidstabtransform gives the n-th picture
/// it is fed the n-th transform of the analysis, so pictures go through it in source order,
/// every one of them; picture i always comes out with source picture i's transform, whichever
/// output frame shows it (a held, slowed, blended, interpolated or reversed frame takes the
/// steadied pictures it is made from). The last `kept` steadied pictures are kept; asking for an
/// earlier one (a reversed range) feeds the transform again from the first picture, keeping the
/// `kept` pictures up to the one asked for.
final class StabilizedPictures: PictureSource {
    private let source: any PictureSource
    private let chain: String
    private let count: Int
    private var graph: FilterGraph?
    /// The next source picture the graph takes.
    private var next = 0
    private var steadied: [Int: Frame] = [:]
    static let kept = 24
    /// How many times the transform started again from the first picture.
    private(set) var restarts = 0

    var backwards = false

    init(source: any PictureSource, stabilization: Stabilization, analysis: URL, count: Int) {
        self.source = source
        self.chain = stabilization.transformChain(analysis.path)
        self.count = count
    }

    func picture(_ p: Int) throws -> Frame {
        if let kept = steadied[p] { return kept }
        if p < next {
            graph = nil
            next = 0
            steadied.removeAll()
            restarts += 1
        }
        source.backwards = false
        while next <= p {
            let frame = try source.picture(next)
            if graph == nil {
                graph = try FilterGraph(chain: chain, filter: "the stabilization", input: FilterGraph.input(like: frame),
                                        work: "steadying a picture")
            }
            try graph!.add(frame, pts: Int64(next))
            guard let out = try graph!.next() else { throw ExportError.unsupported("steadying picture \(next) gave no picture") }
            steadied[next] = out
            steadied[next - Self.kept] = nil
            source.release(behind: next)
            next += 1
        }
        return steadied[p]!
    }

    func release(behind p: Int) {
        // Kept pictures are dropped as the transform moves on; a reversed range needs them.
    }
}
