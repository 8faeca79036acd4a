import Composition

/// Which source frame the timeline shows at one instant, decided as `export --fps` decides
/// each of its frames (``FramePlan``, sample and hold in exact time): inside a scaled segment
/// the frame presented at or before the source time mapped back; inside a reversed one the
/// frame presented just before it (pictures play last to first); inside a freeze the frame on
/// screen at its held time. Also the frames a still may be chosen from or merged with: those
/// the same segment plays (any frame of the movie for a freeze).
struct StillFrameChoice: Equatable {
    /// The frame the timeline shows.
    let frame: Int
    /// The source time the timeline plays there (the held time inside a freeze).
    let sourceTime: Time
    /// The frames of the segment shown, as indices into the movie's frames.
    let neighbourhood: ClosedRange<Int>

    /// What `track` shows at `t` (before its end) over the frames of `scan`; nil inside a gap.
    init?(track: CompositionTrack, scan: VideoScan, at t: Time) throws {
        guard let p = try track.presentation(at: t) else { return nil }
        let times = scan.presentationTimes
        let all = 0...(times.count - 1)
        if let held = p.segment.heldTime {
            frame = scan.frame(at: held)
            sourceTime = held
            neighbourhood = all
            return
        }
        guard let s = p.sourceTime, let range = p.segment.source else { return nil }
        sourceTime = s
        if p.segment.isReversed {
            var i = scan.frame(at: s)
            if i > 0 && times[i] >= s { i -= 1 }
            frame = i
        } else {
            frame = scan.frame(at: s)
        }
        // The segment's frames: those presented inside its source range, and the one on screen
        // at its start.
        let first = scan.frame(at: range.start)
        var last = times.lastIndex(notAfter: range.end)
        if last > first && times[last] >= range.end { last -= 1 }
        neighbourhood = min(first, frame)...max(last, frame)
    }
}
