extension CompositionTrackSegment {
    /// `segments` (a track's, in timeline order) ending where the source does at `end`: for a
    /// movie that stops early (a truncated download), the timeline stops with its last readable
    /// frame instead of running on in silence. The segment that reaches past `end` keeps the part
    /// before it at its rate; segments from `end` on, and holds of a frame at or after it, go.
    public static func cut(_ segments: [CompositionTrackSegment], atSourceEnd end: Time) throws(CompositionError) -> [CompositionTrackSegment] {
        var kept: [CompositionTrackSegment] = []
        for segment in segments {
            if let source = segment.source, let rate = segment.rate {
                if source.start >= end { break }
                if source.end > end {
                    // Played backwards, the part that remains plays from where the segment starts.
                    let part = try TimeRange(start: source.start, end: end)
                    let target = try TimeRange(start: segment.target.start, duration: part.duration.multiplied(by: rate.reciprocal))
                    kept.append(try CompositionTrackSegment(source: part, target: target, reversed: segment.isReversed))
                    if segment.isReversed { continue }
                    break
                }
            } else if let held = segment.heldTime, held >= end {
                break
            }
            kept.append(segment)
        }
        return kept
    }
}
