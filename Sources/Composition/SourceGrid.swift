/// Where the frames of a source's audio lie, along the source: the offset (phase) of its packet
/// grid from source time 0, which changes where the source's own clock jumps (two recordings
/// joined, a looped copy: the packets after the join start a few samples off the grid before
/// it). Fitting a timeline (``FrameGridFit``) aims each edit's offset at the grid of the packets
/// it lands among, so that copied packets on either side of an edit meet the encoded stretch
/// between them with whole frames.
///
/// ```
///   source packets   |0   |1   |2   |3 ||4   |5   |6        a join after 3: 4 starts 1 sample late
///   phase            0 ..................1 ..............
/// ```
public struct SourceGrid: Sendable, Hashable {
    /// Source times from which a phase holds, ascending, with the phase (in `[0, frame)`).
    public let changes: [(start: Time, phase: Time)]

    public init(changes: [(start: Time, phase: Time)]) {
        self.changes = changes
    }

    /// The grid's phase at source time `t`: that of the last change at or before it (the
    /// first's before them all; zero without any).
    public func phase(at t: Time) -> Time {
        var low = 0, high = changes.count
        while low < high {
            let mid = (low + high) / 2
            if changes[mid].start <= t { low = mid + 1 } else { high = mid }
        }
        return changes.isEmpty ? .zero : changes[max(low - 1, 0)].phase
    }

    public static func == (a: SourceGrid, b: SourceGrid) -> Bool {
        a.changes.count == b.changes.count && zip(a.changes, b.changes).allSatisfy { $0.start == $1.start && $0.phase == $1.phase }
    }

    public func hash(into hasher: inout Hasher) {
        for change in changes {
            hasher.combine(change.start)
            hasher.combine(change.phase)
        }
    }
}
