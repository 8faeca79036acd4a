import Composition

/// Where each video packet goes in a passthrough export: its presentation and decode times
/// mapped exactly through the composition, then expressed in an output timescale chosen so that
/// the mapped times stay exact wherever the container allows.
struct PacketMap {
    struct Entry {
        /// The packet's position in the source's decode order.
        let index: Int
        /// Output ticks.
        var pts: Int64
        var dts: Int64
        var duration: Int64
    }

    /// Kept packets, in decode order.
    private(set) var entries: [Entry]
    /// Output ticks per second.
    let timescale: Int32
    /// Whether every kept timestamp is exact in `timescale`.
    let exact: Bool
    /// Packets whose source time no segment plays (removed ranges).
    let dropped: Int

    /// A source packet as read from the file, in seconds of source time (0 is the first
    /// presented frame).
    struct SourcePacket {
        let pts: Time
        let dts: Time
        let duration: Time
    }

    /// The largest timescale slowpoke asks a container for.
    static let maximumTimescale: Int64 = Int64(Int32.max)

    /// Maps `packets` through `track`. `preferred` is the source's own timescale, used when no
    /// exact one fits. Throws when a source time plays more than once (passthrough cannot
    /// repeat frames).
    init(packets: [SourcePacket], track: CompositionTrack, preferred: Int32, fixedTimescale: Int32? = nil) throws {
        var mapped: [(index: Int, pts: Time, dts: Time, end: Time)] = []
        var dropped = 0
        let segments = track.segments.filter { !$0.isEmpty }
        func map(_ s: Time) throws -> Time? {
            let times = try track.compositionTimes(forSourceTime: s)
            if times.count > 1 {
                throw ExportError.unsupported("the timeline plays source time \(s) more than once; passthrough cannot repeat frames")
            }
            return times.first
        }
        /// DTS can lie outside every segment (before the first frame, in a removed range): extend
        /// the mapping monotonically there, with the nearest segment's rate.
        func mapDecode(_ d: Time) throws -> Time {
            if let t = try map(d) { return t }
            guard let first = segments.first, let last = segments.last else { return d }
            if let s = first.source, d < s.start { return try first.target.start - (s.start - d).multiplied(by: first.rate!.reciprocal) }
            if let s = last.source, d >= s.end { return try last.target.end + (d - s.end).multiplied(by: last.rate!.reciprocal) }
            // Inside a removed range: the time at which the following segment starts.
            let next = segments.first { ($0.source?.start ?? d) > d }
            return next?.target.start ?? last.target.end
        }
        let decodeTimes = try Self.decodeTimes(packets)
        for (index, packet) in packets.enumerated() {
            guard let pts = try map(packet.pts) else {
                dropped += 1
                continue
            }
            let end = try map(packet.pts + packet.duration)
                ?? (try Self.endOfFrame(pts: packet.pts, duration: packet.duration, track: track))
            mapped.append((index, pts, try mapDecode(decodeTimes[index]), end))
        }
        // The exact timescale: the least common multiple of every mapped time's denominator.
        var lcm: Int64 = Int64(preferred)
        var exact = true
        if fixedTimescale == nil {
            for m in mapped {
                for t in [m.pts, m.dts, m.end] {
                    guard let d = t.exactSeconds?.denominator else { continue }
                    guard let next = Rational.leastCommonMultiple(lcm, d, limit: Self.maximumTimescale) else { exact = false; break }
                    lcm = next
                }
                if !exact { break }
            }
        }
        let timescale = fixedTimescale ?? (exact ? Int32(lcm) : preferred)
        exact = exact && fixedTimescale == nil
        var entries: [Entry] = []
        entries.reserveCapacity(mapped.count)
        for m in mapped {
            let pts = try m.pts.rescaled(to: timescale).value
            let dts = try m.dts.rescaled(to: timescale).value
            let end = try m.end.rescaled(to: timescale).value
            entries.append(Entry(index: m.index, pts: pts, dts: dts, duration: max(1, end - pts)))
        }
        // Rounding (or a removed range) can make decode times tie; keep them strictly
        // increasing and never after the presentation time.
        for i in entries.indices.dropFirst() where entries[i].dts <= entries[i - 1].dts {
            entries[i].dts = entries[i - 1].dts + 1
        }
        for i in entries.indices where entries[i].dts > entries[i].pts {
            throw ExportError.unsupported("packet \(entries[i].index) would be decoded after it is shown; the source's timestamps cannot be retimed without re-encoding (try --fps)")
        }
        self.entries = entries
        self.timescale = timescale
        self.exact = exact
        self.dropped = dropped
    }

    /// Decode times made from the presentation times: the k-th decoded frame is decoded when
    /// the frame k - d in presentation order is shown, d being the stream's reorder depth (the
    /// least delay that decodes no frame after it is shown). Matroska stores no decode times and
    /// libavformat's guesses break once mapped; stored ones can lie in another segment than
    /// their frame. These are frame times, so any monotonic time map keeps each at or before its
    /// frame's presentation, and strictly increasing.
    static func decodeTimes(_ packets: [SourcePacket]) throws -> [Time] {
        let order = packets.indices.sorted { packets[$0].pts < packets[$1].pts || (packets[$0].pts == packets[$1].pts && $0 < $1) }
        guard let first = order.first else { return [] }
        var rank = [Int](repeating: 0, count: packets.count)
        for (r, i) in order.enumerated() { rank[i] = r }
        let depth = max(0, packets.indices.map { $0 - rank[$0] }.max() ?? 0)
        let step = packets[first].duration > .zero ? packets[first].duration : Time(value: 1, timescale: 1000)
        return try packets.indices.map { i in
            i >= depth ? packets[order[i - depth]].pts : try packets[first].pts - step.multiplied(by: Rational(Int64(depth - i), 1))
        }
    }

    /// The composition time at which a frame that starts at `pts` stops showing, when its end
    /// falls outside every segment (the last frame, or one before a removed range).
    private static func endOfFrame(pts: Time, duration: Time, track: CompositionTrack) throws -> Time {
        guard let start = try track.compositionTimes(forSourceTime: pts).first,
              let index = track.segmentIndex(at: start), let rate = track.segments[index].rate else { return pts }
        return min(try start + duration.multiplied(by: rate.reciprocal), track.segments[index].target.end)
    }
}
