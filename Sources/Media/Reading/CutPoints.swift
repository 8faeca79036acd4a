import Composition

/// Where passthrough may end and resume a run of copied frames so that every frame it copies
/// can be decoded, worked out from the order in which frames are decoded and shown.
///
/// - A run may **end** at time `c` when the frames shown before `c` are exactly the first
///   frames decoded: then no kept frame refers to a dropped one (references are always decoded
///   first). With B-frames that is not true everywhere: a B-frame shown before `c` may be
///   decoded after the P-frame it refers to, shown after `c`.
/// - A run may **resume** at a keyframe that no earlier-decoded frame follows on screen. Its
///   leading pictures (an open GOP's B-frames, decoded after it but shown before it, which refer
///   to the GOP before) are shown before it and so are never kept.
package struct CutPoints: Equatable {
    /// Every frame's presentation time, sorted.
    package let times: [Time]
    /// `endsRun[r]`: the `r` earliest-shown frames are the first `r` decoded (`times.count + 1`
    /// entries; both ends are always true).
    package let endsRun: [Bool]
    /// `resumes[i]`: frame `i` (in presentation order) is a keyframe a run can start from.
    package let resumes: [Bool]
    /// Where the last frame ends.
    package let end: Time

    /// From frames in decode order: presentation times (source time) and keyframe flags.
    package init(decodeOrder pts: [Time], keyframe: [Bool], end: Time) {
        let order = pts.indices.sorted { pts[$0] < pts[$1] || (pts[$0] == pts[$1] && $0 < $1) }
        times = order.map { pts[$0] }
        // The r earliest-shown are the first r decoded iff the largest decode index among
        // them is r - 1.
        var endsRun = [true]
        var largest = -1
        for (rank, index) in order.enumerated() {
            largest = max(largest, index)
            endsRun.append(largest == rank)
        }
        self.endsRun = endsRun
        // A keyframe resumes a run when every frame decoded before it is shown before it.
        var latestShown: [Time?] = []
        latestShown.reserveCapacity(pts.count)
        var latest: Time?
        for t in pts {
            latestShown.append(latest)
            latest = latest.map { max($0, t) } ?? t
        }
        resumes = order.map { index in keyframe[index] && (latestShown[index].map { $0 < pts[index] } ?? true) }
        self.end = end
    }

    /// How many frames are shown before `t`.
    private func rank(before t: Time) -> Int { times.firstIndex(notBefore: t) }

    /// The latest time at or before `x` where a run may end: `x` itself when the frames shown
    /// before it are a decode prefix, else the start of the earliest frame that breaks that.
    package func stop(atOrBefore x: Time) -> Time {
        var r = rank(before: x)
        if endsRun[r] { return x }
        while !endsRun[r] { r -= 1 }
        return times[r]
    }

    /// The earliest keyframe at or after `y` from which a run may resume; nil when there is
    /// none before the end.
    package func resume(atOrAfter y: Time) -> Time? {
        var r = rank(before: y)
        while r < times.count && !resumes[r] { r += 1 }
        return r < times.count ? times[r] : nil
    }
}
