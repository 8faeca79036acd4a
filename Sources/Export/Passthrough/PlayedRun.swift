import Composition

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
        var runs: [PlayedRun] = []
        for segment in segments {
            guard let source = segment.source else { continue }
            let ranks = rank(before: source.start, in: times)..<rank(before: source.end, in: times)
            guard !ranks.isEmpty else { continue }
            if let last = runs.last, last.reversed == segment.isReversed,
               segment.isReversed ? ranks.upperBound == last.ranks.lowerBound : last.ranks.upperBound == ranks.lowerBound {
                runs[runs.count - 1].ranks = min(last.ranks.lowerBound, ranks.lowerBound)..<max(last.ranks.upperBound, ranks.upperBound)
            } else {
                runs.append(PlayedRun(ranks: ranks, reversed: segment.isReversed))
            }
        }
        return runs
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
