/// Splicing: how every edit of a ``CompositionTrack`` changes only the segments it touches.
///
/// An edit replaces the content of one range of the track with new pieces. Only the segments
/// that range overlaps, and one neighbour on each side (which may merge with the new pieces),
/// are rebuilt; they are found by binary search, and the segments after them move by the
/// change in length. The result is exactly what rebuilding the whole track gives, because
/// a track is always in its simplest form: segments outside the rebuilt stretch did not merge
/// with each other before, and a merged run keeps the rate and held frame of its parts, so
/// they do not merge with it now.
///
///     before:  [a)[b)[c ==|== range ==|== d)[e)[f)
///     rebuilt:    [b)[c)[new pieces  ][d)[e)           b and e: neighbours that may merge
///     after:   [a)[b)[c)[new pieces  ][d)[e)[f)        f moved by the change in length
extension CompositionTrack {
    /// Replaces the content of `range` (in the track's times) with `pieces`, laid end to end
    /// from `range.start`. Later content moves by the pieces' total length minus
    /// `range.duration`. The track is unchanged if this throws.
    mutating func splice(_ range: TimeRange, with pieces: [Piece]) throws(CompositionError) {
        let count = segments.count
        // The segment holding range.start (count at the end), and the one before it.
        let first = segmentIndex(at: range.start) ?? count
        let lower = max(0, first - 1)
        // The segment holding range.end, and the one after it.
        let upper = segmentIndex(at: range.end).map { min(count, $0 + 2) } ?? count
        let contextStart = lower < count ? segments[lower].target.start : range.start
        let contextEnd = upper > lower ? segments[upper - 1].target.end : range.end
        let left = try self.pieces(in: TimeRange(start: contextStart, end: range.start))
        let right = try self.pieces(in: TimeRange(start: range.end, end: max(range.end, contextEnd)))
        let rebuilt = try Self.build(left + pieces + right, from: contextStart)
        var start = rebuilt.last?.target.end ?? contextStart
        if start == max(range.end, contextEnd) {
            segments.replaceSubrange(lower..<upper, with: rebuilt)
            return
        }
        // Later segments laid end to end after the new ones, each start the sum before it, as
        // rebuilding the whole track computes them (never through the difference of the two
        // ends, whose timescale can overflow where the starts themselves do not).
        var tail: [CompositionTrackSegment] = []
        tail.reserveCapacity(count - upper)
        for segment in segments[upper...] {
            let moved = try segment.moved(to: start)
            tail.append(moved)
            start = moved.target.end
        }
        segments.replaceSubrange(lower..., with: rebuilt + tail)
    }

    /// Scales consecutive steps at once: each step's range (in the track's times before the
    /// edit, tiling one stretch in order) gets its pieces' lengths multiplied by its factor.
    /// Exactly what scaling the steps one by one, last to first, gives; in one splice.
    mutating func scaleSteps(_ steps: [(range: TimeRange, factor: Rational)]) throws(CompositionError) {
        guard let start = steps.first?.range.start, let end = steps.last?.range.end else { return }
        var scaled: [Piece] = []
        for step in steps {
            for var piece in try pieces(in: step.range) {
                piece.duration = try piece.duration.multiplied(by: step.factor)
                scaled.append(piece)
            }
        }
        try splice(TimeRange(start: start, end: end), with: scaled)
    }

    /// Plays `range` backwards: its pieces in reverse order, each media piece's direction
    /// flipped (a reversed stretch plays forwards again); gaps and holds keep their length.
    /// The track's length and every rate are unchanged, so reversing the same range again
    /// undoes it.
    public mutating func reverseTimeRange(_ range: TimeRange) throws(CompositionError) {
        guard range.start >= .zero, range.end <= duration else {
            throw .beyondTimeline("range \(range) goes beyond the track's 0-\(duration.readable)")
        }
        guard !range.isEmpty else { throw .invalidRange("range \(range) is empty; there is nothing to reverse") }
        let flipped = try pieces(in: range).reversed().map { piece in
            var piece = piece
            if piece.source != nil { piece.reversed.toggle() }
            return piece
        }
        try splice(range, with: flipped)
    }

    /// Whether no two neighbouring segments continue each other: the form every edit leaves a
    /// track in, and the one a document's stored timeline must have to be trusted.
    public var isSimplest: Bool {
        for index in segments.indices.dropFirst() {
            let a = segments[index - 1], b = segments[index]
            let pa = Piece(source: a.source, duration: a.target.duration, held: a.heldTime, reversed: a.isReversed)
            let pb = Piece(source: b.source, duration: b.target.duration, held: b.heldTime, reversed: b.isReversed)
            if (try? Self.continues(pa, with: pb)) != false { return false }
        }
        return true
    }
}
