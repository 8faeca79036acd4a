/// A video's frame start times in source time, sorted ascending: where a boundary of the
/// timeline may move without a frame changing sides.
///
/// A segment plays the frames that start inside its source range `[s, e)`. Moving `s` (or `e`)
/// anywhere in its window, after the last frame start before it and up to the first at or after
/// it, keeps exactly the same frames on each side:
///
/// ```
///   frames      |f0       |f1       |f2       |f3
///   boundary                    ^ s
///   its window            (f1 ......f2]         s may move anywhere in here
/// ```
public struct FrameTimes: Sendable {
    public let times: [Time]

    /// `times` must be sorted ascending.
    public init(sorted times: [Time]) {
        self.times = times
    }

    /// Where a boundary at `t` may move and keep every frame on its side: after `lower` (the
    /// last frame start before `t`; nil when none) and up to `upper` inclusive (the first
    /// frame start at or after `t`; nil when none). Binary search, exact.
    public func window(around t: Time) -> (lower: Time?, upper: Time?) {
        let i = index(notBefore: t)
        return (i > 0 ? times[i - 1] : nil, i < times.count ? times[i] : nil)
    }

    /// How many frames start in `range`.
    public func count(in range: TimeRange) -> Int {
        index(notBefore: range.end) - index(notBefore: range.start)
    }

    /// The index of the first frame starting at or after `t`.
    private func index(notBefore t: Time) -> Int { times.firstIndex(notBefore: t) }
}

extension Array where Element == Time {
    /// In times sorted ascending, the index of the first one at or after `t` (`count` when
    /// none is): how many come before `t`. Binary search, exact.
    public func firstIndex(notBefore t: Time) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
