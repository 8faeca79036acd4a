import Composition

/// A video packet as read from the file (for passthrough's `PacketMap`), in seconds of source
/// time (0 is the first presented frame). Its stored decode time is not kept: decode times are
/// derived from the mapped presentation times (see `PacketMap.decodeTimes(_:step:)`).
package struct SourcePacket {
    package let pts: Time
    package let duration: Time
    /// Damaged, or decoded from a damaged one before the next keyframe: never copied.
    package var damaged = false
    /// Hidden by the source's edit list (before source time 0): a decode reference only.
    package var hidden = false
    /// Where a re-encoded still (a freeze's held frame, a gap's black) shows, in output
    /// time: not mapped through the timeline.
    package var shown: TimeRange? = nil

    package init(pts: Time, duration: Time, damaged: Bool = false, hidden: Bool = false, shown: TimeRange? = nil) {
        self.pts = pts
        self.duration = duration
        self.damaged = damaged
        self.hidden = hidden
        self.shown = shown
    }
}
