public import Composition

extension ExportSource {
    /// The timeline stretches that play backwards (timeline time, in order, neighbours joined).
    public var reversedRanges: [TimeRange] {
        var ranges: [TimeRange] = []
        for segment in timeline.tracks.first?.segments ?? [] where segment.isReversed {
            if let last = ranges.last, last.end == segment.target.start, let joined = try? TimeRange(start: last.start, end: segment.target.end) {
                ranges[ranges.count - 1] = joined
            } else {
                ranges.append(segment.target)
            }
        }
        return ranges
    }

    /// Refuses, before any work, an export that cannot play the timeline's reversed stretches.
    func refuseReverse(_ why: String, remedies: [Remedy]) throws(ExportError) {
        guard let first = reversedRanges.first else { return }
        throw .unavailable(Notice("the timeline of \(name) plays \(first.shown) backwards, and \(why)", remedies: remedies))
    }
}
