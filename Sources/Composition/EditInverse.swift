/// Undoing an edit without replaying the history before it.
///
/// An edit that loses nothing has an inverse: a scale is scaled back, a ramp's steps are
/// scaled back from where they ended, a gap or a held frame is removed, a reversed range is reversed again. The inverse is
/// trusted only when applying the edit again to its result gives back exactly the timeline it
/// undid: these edits are one-to-one (a timeline and the edit determine what was before it),
/// so that timeline is the one a replay would give. A cut (what it removed is gone) and slow
/// motion have none here, and are undone by replaying.
extension Edit {
    /// The timeline before this edit, from `after`, the timeline it left; nil when the edit has
    /// no inverse, or the inverse does not check out (then replay the history instead).
    public func undone(on after: Composition) -> Composition? {
        var before = after
        do {
            switch self {
            case .scale(let range, let duration):
                try before.scaleTimeRange(TimeRange(start: range.start, duration: duration), toDuration: range.duration)
            case .ramp(let ramp):
                var steps: [(range: TimeRange, toDuration: Time)] = []
                var start = ramp.range.start
                for (range, factor) in zip(try ramp.stepRanges(), try ramp.stepFactors()) {
                    let length = try range.duration.multiplied(by: factor)
                    steps.append((try TimeRange(start: start, duration: length), range.duration))
                    start = try start + length
                }
                try before.scaleSteps(steps)
            case .insertGap(let range), .freeze(let range):
                try before.removeTimeRange(range)
            case .reverse(let range):
                try before.reverseTimeRange(range)
            case .group(let parts):
                // The parts were applied last to first: the first one is undone first.
                for part in parts {
                    guard let undone = part.undone(on: before) else { return nil }
                    before = undone
                }
            case .remove, .slowMotion:
                return nil
            }
            var again = before
            try apply(to: &again)
            return again == after ? before : nil
        } catch {
            return nil
        }
    }
}
