/// Several ranges in one edit (`scale --range 1-2 --range 5-6 --rate 0.5`, `remove --range
/// 1-2,5-6`): one ``Edit/group(_:)``, so `history` shows one line and `undo` takes it back at once.
///
/// Every part names its range on the timeline as it was before the edit. The parts are applied
/// from the last range to the first, so an edit never moves a range still to come:
///
///     before:  |--A--|  |--B--|      B first (its length changes),
///     after:   |-A'-|  |----B'----|  then A, which B did not move
extension Edit {
    /// `edits` as one edit: the single edit itself when there is one, else a group of them in
    /// timeline order. Each must be a scale, a cut, a reverse or a ramp, and no two ranges may
    /// overlap (ranges that meet are fine).
    public static func grouped(_ edits: [Edit]) throws(CompositionError) -> Edit {
        guard edits.count > 1 else {
            guard let only = edits.first else { throw .invalidRange("an edit needs at least one range") }
            return only
        }
        var parts: [(range: TimeRange, edit: Edit)] = []
        for edit in edits {
            guard let range = edit.groupableRange else {
                throw .invalidRange("\(edit.summary) cannot be one of several ranges edited at once")
            }
            parts.append((range, edit))
        }
        parts.sort { $0.range.start < $1.range.start || ($0.range.start == $1.range.start && $0.range.end < $1.range.end) }
        for (first, second) in zip(parts, parts.dropFirst()) where first.range.overlaps(second.range) || first.range == second.range {
            throw .invalidRange("ranges \(first.range.shown) and \(second.range.shown) overlap; give ranges apart (ones that meet, like 1-2 and 2-3, are fine)")
        }
        return .group(parts.map(\.edit))
    }

    /// The edits a group is made of, in timeline order; the edit itself for any other.
    public var parts: [Edit] {
        if case .group(let parts) = self { parts } else { [self] }
    }

    /// The range of an edit that may be one of a group's parts.
    var groupableRange: TimeRange? {
        switch self {
        case .scale(let range, _), .remove(let range), .reverse(let range): range
        case .ramp(let ramp): ramp.range
        case .insertGap, .freeze, .slowMotion, .group: nil
        }
    }

    /// From the first part's start to the last part's end: what a group's edit touches, and the
    /// `range` it is recorded with.
    static func hull(of parts: [Edit]) throws(CompositionError) -> TimeRange {
        guard let first = parts.first?.groupableRange, let last = parts.last?.groupableRange else {
            throw .invalidRange("a group needs edits with ranges")
        }
        return try TimeRange(start: first.start, end: max(first.end, last.end))
    }
}
