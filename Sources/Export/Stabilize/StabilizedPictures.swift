import Foundation
import Media

/// The source's pictures steadied by vidstabtransform (``StabilizationTransform``, which takes
/// pictures in source order, every one of them): picture i always comes out with source
/// picture i's transform, whichever output frame shows it (a held, slowed, blended,
/// interpolated or reversed frame takes the steadied pictures it is made from). The last
/// `kept` steadied pictures are kept; asking for an earlier one (a reversed range) feeds the
/// transform again from the first picture, keeping the `kept` pictures up to the one asked for.
final class StabilizedPictures: PictureSource {
    private let source: any PictureSource
    private let transform: StabilizationTransform
    private var steadied: [Int: Frame] = [:]
    static let kept = 24
    /// How many times the transform started again from the first picture.
    var restarts: Int { transform.restarts }

    var backwards = false

    init(source: any PictureSource, stabilization: Stabilization, analysis: URL, count: Int) {
        self.source = source
        self.transform = StabilizationTransform(stabilization, analysis: analysis)
    }

    func picture(_ p: Int) throws -> Frame {
        if let kept = steadied[p] { return kept }
        if p < transform.next {
            transform.restart()
            steadied.removeAll()
        }
        source.backwards = false
        while transform.next <= p {
            let next = transform.next
            let frame = try source.picture(next)
            steadied[next] = try transform.steady(frame)
            steadied[next - Self.kept] = nil
            source.release(behind: next)
        }
        return steadied[p]!
    }

    func release(behind p: Int) {
        // Kept pictures are dropped as the transform moves on; a reversed range needs them.
    }
}
