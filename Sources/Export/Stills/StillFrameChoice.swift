import Composition
import Media

/// Which source frame the timeline shows at one instant, decided as `export --fps` decides
/// each of its frames (``FramePlan``, sample and hold in exact time): inside a scaled segment
/// the frame presented at or before the source time mapped back; inside a reversed one the
/// frame presented just before it (pictures play last to first); inside a freeze the frame on
/// screen at its held time. At the timeline's end, the last picture it shows. Also the frames
/// a still may be chosen from or merged with: those the same segment plays (any frame of the
/// movie for a freeze).
struct StillFrameChoice: Equatable {
    /// The frame the timeline shows.
    let frame: Int
    /// The source time the timeline plays there (the held time inside a freeze).
    let sourceTime: Time
    /// The frames of the segment shown, as indices into the movie's frames.
    let neighbourhood: ClosedRange<Int>

    /// What `track` shows at `t` over the frames of `scan`; nil inside a gap.
    init?(track: CompositionTrack, scan: VideoScan, at t: Time) throws {
        if t == track.duration, let last = track.segments.last {
            self.init(lastOf: last, scan: scan)
            return
        }
        guard let p = try track.presentation(at: t) else { return nil }
        self.init(p.segment, sourceTime: p.sourceTime, scan: scan)
    }

    /// The picture `segment` shows when it plays source time `s`.
    private init?(_ segment: CompositionTrackSegment, sourceTime s: Time?, scan: VideoScan) {
        let times = scan.presentationTimes
        if let held = segment.heldTime {
            frame = scan.frame(at: held)
            sourceTime = held
            neighbourhood = 0...(times.count - 1)
            return
        }
        guard let s, let range = segment.source else { return nil }
        sourceTime = s
        var i = scan.frame(at: s)
        if segment.isReversed && i > 0 && times[i] >= s { i -= 1 }
        frame = i
        neighbourhood = Self.frames(of: range, scan: scan, including: i)
    }

    /// The last picture `segment` shows: played forwards, the one on screen just before its
    /// source end; backwards, the one at its source start.
    private init?(lastOf segment: CompositionTrackSegment, scan: VideoScan) {
        guard !segment.isHold, let range = segment.source else {
            self.init(segment, sourceTime: segment.heldTime, scan: scan)
            return
        }
        let times = scan.presentationTimes
        var i = scan.frame(at: segment.isReversed ? range.start : range.end)
        if !segment.isReversed && i > 0 && times[i] >= range.end { i -= 1 }
        self.init(frame: i, sourceTime: segment.isReversed ? range.start : times[i],
                  neighbourhood: Self.frames(of: range, scan: scan, including: i))
    }

    private init(frame: Int, sourceTime: Time, neighbourhood: ClosedRange<Int>) {
        self.frame = frame
        self.sourceTime = sourceTime
        self.neighbourhood = neighbourhood
    }

    /// The frames presented inside `range`, the one on screen at its start, and `frame`.
    private static func frames(of range: TimeRange, scan: VideoScan, including frame: Int) -> ClosedRange<Int> {
        let times = scan.presentationTimes
        let first = scan.frame(at: range.start)
        var last = times.lastIndex(notAfter: range.end)
        if last > first && times[last] >= range.end { last -= 1 }
        return min(first, frame)...max(last, frame)
    }
}
