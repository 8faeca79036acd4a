extension CompositionTrackSegment {
    /// `segments` with every source and target time rounded to the nearest tick of
    /// 1/`timescale` s, for a timeline whose exact times have outgrown exact arithmetic (stacked
    /// ramps, cuts and odd rates): each boundary rounds the same way in both segments that share
    /// it, so the timeline stays contiguous; a segment that rounds to nothing goes.
    public static func rounded(_ segments: [CompositionTrackSegment], to timescale: Int32) throws(CompositionError) -> [CompositionTrackSegment] {
        func tick(_ t: Time) throws(CompositionError) -> Time { try t.rescaled(to: timescale) }
        var result: [CompositionTrackSegment] = []
        for segment in segments {
            let target = try TimeRange(start: tick(segment.target.start), end: tick(segment.target.end))
            guard !target.isEmpty else { continue }
            if let source = segment.source {
                let rounded = try TimeRange(start: tick(source.start), end: tick(source.end))
                guard !rounded.isEmpty else { continue }
                result.append(try CompositionTrackSegment(source: rounded, target: target, reversed: segment.isReversed))
            } else if let held = segment.heldTime {
                result.append(try CompositionTrackSegment(holding: tick(held), target: target))
            } else {
                result.append(try CompositionTrackSegment(emptyTarget: target))
            }
        }
        return result
    }
}
