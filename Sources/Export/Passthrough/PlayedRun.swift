import Composition
import Media

/// A stretch of the source's frames (presentation ranks, as ``CutPoints`` sorts them) that the
/// timeline plays in one go, in timeline order: forwards, or backwards in a reversed segment.
///
/// ```
///   timeline   [0 ==== 2)[2 ==== 4)[4 ==== 6)      source 2-4 reversed
///   runs       ranks 0..<60 →  60..<120 ←  120..<180 →
/// ```
/// A frame belongs to the segment whose source contains its presentation time. Neighbouring
/// segments whose frames continue one another in the same direction make one run (a removal
/// shorter than a frame, a change of speed), so a forward-only timeline gives the runs of shown
/// frames in source order, as before reversing existed.
struct PlayedRun: Equatable {
    var ranks: Range<Int>
    var reversed: Bool

    /// The runs of `times` (every frame's presentation time, sorted) that `segments` play.
    static func runs(times: [Time], segments: [CompositionTrackSegment]) -> [PlayedRun] {
        pieces(times: times, segments: segments, stills: false).compactMap { if case .run(let run) = $0 { run } else { nil } }
    }

    /// What the timeline shows, in its order: runs of source frames, and (with `stills`) the
    /// holds and gaps between them, which end a run.
    /// ```
    ///   timeline   [0 == 2)[hold 2-3)[3 ==== 5)[gap 5-6)[6 == 8)
    ///   pieces     run →   still     run →     still    run →
    /// ```
    enum Piece: Equatable {
        case run(PlayedRun)
        /// A hold of the frame on screen at source time `held`, or a gap (`held` nil), over `shown`.
        case still(held: Time?, shown: TimeRange)
    }

    static func pieces(times: [Time], segments: [CompositionTrackSegment], stills: Bool = true) -> [Piece] {
        var pieces: [Piece] = []
        for segment in segments {
            guard let source = segment.source else {
                guard stills && !segment.target.isEmpty else { continue }
                // Pieces of one gap or one freeze (split by a reverse over part of it) show one picture.
                if case .still(let held, let shown)? = pieces.last, held == segment.heldTime, shown.end == segment.target.start,
                   let joined = try? TimeRange(start: shown.start, end: segment.target.end) {
                    pieces[pieces.count - 1] = .still(held: held, shown: joined)
                } else {
                    pieces.append(.still(held: segment.heldTime, shown: segment.target))
                }
                continue
            }
            let ranks = rank(before: source.start, in: times)..<rank(before: source.end, in: times)
            guard !ranks.isEmpty else { continue }
            if case .run(let last) = pieces.last, last.reversed == segment.isReversed,
               segment.isReversed ? ranks.upperBound == last.ranks.lowerBound : last.ranks.upperBound == ranks.lowerBound {
                pieces[pieces.count - 1] = .run(PlayedRun(ranks: min(last.ranks.lowerBound, ranks.lowerBound)..<max(last.ranks.upperBound, ranks.upperBound),
                                                          reversed: segment.isReversed))
            } else {
                pieces.append(.run(PlayedRun(ranks: ranks, reversed: segment.isReversed)))
            }
        }
        return pieces
    }

    /// The presentation rank of the frame on screen at source time `t`: the last that starts at
    /// or before it (the first frame for a time before every frame).
    static func rank(showing t: Time, in times: [Time]) -> Int {
        var r = rank(before: t, in: times)
        if r < times.count && times[r] == t { r += 1 }
        return max(0, r - 1)
    }

    /// How many of `times` (sorted) are before `t`.
    private static func rank(before t: Time, in times: [Time]) -> Int {
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
