import Foundation
import Composition
import Media

extension PassthroughExporter {
    /// Says where cuts moved, which removals passthrough cannot make, freezes whose frame a
    /// removal took, and gaps, when `stills` (re-encoded held frames and black gaps) do not show them.
    static func warn(about cuts: [KeyframeSnapping.Cut], in segments: [CompositionTrackSegment],
                     name: String, container: Container, stills: Bool = false, warning: (Notice) -> Void) {
        var reported: [TimeRange] = []
        for cut in cuts {
            if cut.requested.start < .zero, let actual = cut.actual {
                warning(Notice("\(name) hides its first \(String(format: "%.3f", -cut.requested.start.seconds)) s with an edit list, which \(container.muxer) cannot do; passthrough starts at the next keyframe \(actual.end) in, the first shown frame it can decode without them",
                               remedies: [Remedy(.container(["mp4", "mov"]), "to keep them hidden"), Remedy(.constantRate)]))
                continue
            }
            if let actual = cut.actual {
                guard actual != cut.requested, !reported.contains(actual) else { continue }
                reported.append(actual)
                let requested = cuts.filter { $0.actual == actual }.map { "\($0.requested)" }.joined(separator: ", ")
                let lost = cuts.filter { $0.actual == actual }.map(\.requested.end).max().map { $0 < actual.end } ?? false
                warning(Notice("passthrough cuts where the copied frames can be decoded: the removal of source \(requested) became \(actual)"
                               + (lost ? ", so the timeline loses source it keeps up to \(actual.end) (no keyframe to resume from comes sooner)" : ""),
                               remedies: [Remedy(.constantRate, "to cut exactly")]))
            } else {
                warning(Notice("passthrough cannot remove source \(cut.requested): resuming after it needs a keyframe that decoding can start from (an IDR picture; an open GOP's other keyframes need the pictures before them), and the next one is further away than the range is long, so the range stays",
                               remedies: [Remedy(.constantRate, "to cut exactly")]))
            }
        }
        // A removal (or a cut moved to a keyframe) can take a freeze's frame with it: the hold
        // then shows the last frame before the cut.
        for hold in segments where hold.isHold && !stills {
            guard let held = hold.heldTime, !segments.contains(where: { $0.source.map { $0.start <= held && held <= $0.end } ?? false }) else { continue }
            warning("the freeze at \(hold.target.start.readable) held source \(held.readable), which a removal takes out, so it holds the last frame before that cut instead")
        }
        if segments.contains(where: \.isEmpty) && !stills {
            warning(Notice("the timeline has gaps; passthrough cannot make new frames, so the frame before each gap stays on screen",
                           remedies: [Remedy(.constantRate, "for black")]))
        }
    }
}
