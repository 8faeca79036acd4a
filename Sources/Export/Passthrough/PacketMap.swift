import Composition
import Media

/// Where each video packet goes in a passthrough export: its presentation and decode times
/// mapped exactly through the composition, then expressed in an output timescale chosen so that
/// the mapped times stay exact wherever the container allows.
struct PacketMap {
    struct Entry {
        /// The packet's position in the source's decode order.
        let index: Int
        /// Hidden by the edit list: carried (before time 0) only as a reference.
        var hidden = false
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

    /// A source packet as read from the file (see ``Media/SourcePacket``).
    typealias SourcePacket = Media.SourcePacket

    /// The largest timescale slowpoke asks a container for.
    static let maximumTimescale: Int64 = Int64(Int32.max)

    /// What an mp4 or mov can hold, in ticks: a sample's duration is 32 bits, and libavformat
    /// drops every composition offset (and with them the presentation order of B-frames) once
    /// one reaches 2^28, which a long hold or a very slow section among B-frames does at a fine
    /// timescale (600 s held at 1/568320 s).
    struct Limits {
        var offset: Int64 = 1 << 28
        var step: Int64 = Int64(Int32.max)
    }

    /// Coarser timescales to fall back on, finest first, when the exact one exceeds the limits.
    static let fallbackTimescales: [Int32] = [90_000, 60_000, 48_000, 30_000, 24_000, 15_360, 12_800, 10_000, 6_000, 3_000,
                                              1_000, 600, 100, 10, 1]

    /// The exact timescale for `times`: the least common multiple of their denominators and
    /// `preferred`; nil when it would pass ``maximumTimescale``.
    private static func exactTimescale(_ times: [Time], preferred: Int32) -> Int32? {
        var lcm = Int64(preferred)
        for t in times {
            guard let d = t.exactSeconds?.denominator else { continue }
            guard let next = Rational.leastCommonMultiple(lcm, d, limit: maximumTimescale) else { return nil }
            lcm = next
        }
        return Int32(lcm)
    }

    /// Maps `packets` through `track`. `preferred` is the source's own timescale, used when no
    /// exact one fits. Throws when a source time plays more than once (passthrough cannot
    /// repeat frames).
    /// With `carriesHidden` (a container that writes an edit list of its own), frames the
    /// source's edit list hides are kept before time 0, undisplayed, when the timeline starts
    /// with the start of the movie, so the first shown frame still has its references.
    /// With `limits` (mp4 and mov), a timescale whose ticks would exceed them gives way to the
    /// source's own, then to the finest of ``fallbackTimescales`` that fits, and the map says it
    /// is inexact.
    /// With `holdsAreFrames`, holds are re-encoded stills among `packets` (``SourcePacket/shown``)
    /// rather than a copied frame shown longer, and a frame before a still stops where it starts.
    init(packets: [SourcePacket], track: CompositionTrack, preferred: Int32, fixedTimescale: Int32? = nil,
         carriesHidden: Bool = false, limits: Limits? = nil, holdsAreFrames: Bool = false) throws {
        var mapped: [(index: Int, pts: Time, end: Time, hidden: Bool)] = []
        let first = track.segments.first
        let startsAtZero = carriesHidden && first?.source?.start == .zero && first?.isReversed == false
        var dropped = 0
        // Where exact arithmetic overflows (rates like 1/(31·29·23·19) stacked on a 1/15360 s
        // grid), times are rounded to `preferred` ticks instead, and the map says it is inexact.
        var rounded = false
        // Holds (freeze frames): the frame on screen at the held time stays on screen through
        // the hold. A frame that starts exactly at a held time starts showing where the hold
        // starts (and the frame before it ends there); one that shows across the held time
        // already spans the hold, since its end maps to after it.
        let holds = holdsAreFrames ? [] : track.segments.enumerated().compactMap { i, s in s.heldTime.map { (held: $0, index: i) } }
        func map(_ s: Time) throws -> Time? {
            if let hold = holds.first(where: { $0.held == s }) { return track.segments[hold.index].target.start }
            do {
                let times = try track.compositionTimes(forSourceTime: s)
                if times.count > 1 {
                    throw ExportError.unsupported("the timeline plays source time \(s) more than once; passthrough cannot repeat frames")
                }
                return times.first
            } catch CompositionError.overflow {
                rounded = true
                return track.approximateCompositionTime(forSourceTime: s, timescale: preferred)
            }
        }
        for (index, packet) in packets.enumerated() {
            if let shown = packet.shown {
                mapped.append((index, shown.start, shown.end, false))
                continue
            }
            if packet.hidden {
                if startsAtZero, !packet.damaged, let rate = first?.rate, packet.pts < .zero {
                    let pts = try packet.pts.multiplied(by: rate.reciprocal)
                    mapped.append((index, pts, min(.zero, try (packet.pts + packet.duration).multiplied(by: rate.reciprocal)), true))
                } else {
                    dropped += 1
                }
                continue
            }
            if !packet.damaged, let played = try Self.playedBackwards(pts: packet.pts, duration: packet.duration, track: track) {
                mapped.append((index, played.start, played.end, false))
                continue
            }
            guard !packet.damaged, let pts = try map(packet.pts) else {
                dropped += 1
                continue
            }
            let frameEnd = try packet.pts + packet.duration
            var end = Self.playsBackwards(frameEnd, in: track) ? nil : try map(frameEnd)
            if end == nil {
                do { end = try Self.endOfFrame(pts: packet.pts, duration: packet.duration, track: track) } catch CompositionError.overflow {
                    rounded = true
                    end = pts
                }
            }
            if let last = (try? Self.endThroughHold(pts: packet.pts, duration: packet.duration, holds: holds, track: track)) ?? nil {
                end = max(end ?? pts, last)
            }
            mapped.append((index, pts, end ?? pts, false))
        }
        if packets.contains(where: { $0.shown != nil }) { Self.endAtNext(&mapped) }
        let lcm = rounded || fixedTimescale != nil ? nil : Self.exactTimescale(mapped.flatMap { [$0.pts, $0.end] }, preferred: preferred)
        let (entries, timescale, exact) = try Self.entries(mapped, timescale: fixedTimescale ?? lcm ?? preferred, exact: lcm != nil,
                                                           preferred: preferred, limits: fixedTimescale == nil ? limits : nil)
        self.entries = entries
        self.timescale = timescale
        self.exact = exact
        self.dropped = dropped
    }

    /// The entries for `mapped` in `timescale`, or (when `limits` are passed) in the source's
    /// own timescale or a coarser one of ``fallbackTimescales`` that keeps them, then inexact.
    private static func entries(_ mapped: [(index: Int, pts: Time, end: Time, hidden: Bool)], timescale: Int32, exact: Bool,
                                preferred: Int32, limits: Limits?) throws -> (entries: [Entry], timescale: Int32, exact: Bool) {
        var (timescale, exact) = (timescale, exact)
        var entries = try Self.entries(mapped, timescale: timescale)
        if let limits, !Self.fit(entries, limits) {
            let coarser = [preferred] + Self.fallbackTimescales.filter { $0 < preferred }
            for candidate in coarser where candidate < timescale {
                timescale = candidate
                entries = try Self.entries(mapped, timescale: candidate)
                exact = false
                if Self.fit(entries, limits) { break }
            }
            guard Self.fit(entries, limits) else {
                throw ExportError.unsupported("the timeline is too long for an mp4 or mov track even in whole seconds; export to .mkv")
            }
        }
        return (entries, timescale, exact)
    }

    /// Ends each shown frame where the next one (in presentation order) starts, at the latest: a
    /// frame before a still no longer shows through it.
    private static func endAtNext(_ mapped: inout [(index: Int, pts: Time, end: Time, hidden: Bool)]) {
        let order = mapped.indices.filter { !mapped[$0].hidden }.sorted { mapped[$0].pts < mapped[$1].pts }
        for (a, b) in zip(order, order.dropFirst()) where mapped[a].end > mapped[b].pts && mapped[b].pts > mapped[a].pts {
            mapped[a].end = mapped[b].pts
        }
    }

    /// The entries for `mapped` times in ticks of 1/`timescale` s, with their decode times.
    private static func entries(_ mapped: [(index: Int, pts: Time, end: Time, hidden: Bool)], timescale: Int32) throws -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(mapped.count)
        for m in mapped {
            let pts = try m.pts.rescaled(to: timescale).value
            let end = try m.end.rescaled(to: timescale).value
            entries.append(Entry(index: m.index, hidden: m.hidden, pts: pts, dts: 0, duration: max(1, end - pts)))
        }
        // Rounding can make presentation times tie: keep them strictly increasing, in
        // presentation order, a tick apart at the least.
        let order = entries.indices.sorted { entries[$0].pts < entries[$1].pts || (entries[$0].pts == entries[$1].pts && $0 < $1) }
        for (a, b) in zip(order, order.dropFirst()) where entries[b].pts <= entries[a].pts {
            entries[b].pts = entries[a].pts + 1
        }
        // Decode times from the presentation times (see decodeTimes): strictly increasing and
        // never after their frame is shown, whatever the map did.
        let decode = Self.decodeTimes(entries.map(\.pts), step: entries.first.map { max(1, $0.duration) } ?? 1)
        for i in entries.indices { entries[i].dts = decode[i] }
        return entries
    }

    /// Whether every composition offset, decode step and duration of `entries` is within `limits`.
    private static func fit(_ entries: [Entry], _ limits: Limits) -> Bool {
        for (i, e) in entries.enumerated() {
            if e.pts - e.dts >= limits.offset || e.duration > limits.step { return false }
            if i > 0 && e.dts - entries[i - 1].dts > limits.step { return false }
        }
        return true
    }

    /// Decode times made from presentation times (ticks, in decode order, distinct): the k-th
    /// decoded frame is decoded when the frame k - d in presentation order is shown, d being the
    /// reorder depth (the least delay that decodes no frame after it is shown); the first d are
    /// `step` apart before the first frame. Matroska stores no decode times and libavformat's
    /// guesses break once mapped; stored ones can fall in another segment than their frame.
    static func decodeTimes(_ pts: [Int64], step: Int64) -> [Int64] {
        let sorted = pts.sorted()
        guard let first = sorted.first else { return [] }
        var rank: [Int64: Int] = [:]
        for (r, t) in sorted.enumerated() { rank[t] = r }
        let depth = max(0, pts.indices.map { $0 - rank[pts[$0]]! }.max() ?? 0)
        return pts.indices.map { i in i >= depth ? sorted[i - depth] : first - step * Int64(depth - i) }
    }

    /// Whether a reversed segment plays source time `s`: then a forward frame that ends there
    /// (the last one before a reverse) ends where its own segment does, not where playing
    /// backwards reaches `s`.
    private static func playsBackwards(_ s: Time, in track: CompositionTrack) -> Bool {
        track.segments.contains { $0.isReversed && $0.source?.contains(s) == true }
    }

    /// Where a frame that starts at source time `pts` shows when a reversed segment plays it:
    /// from where playing backwards reaches its end (the segment's start for a frame that runs
    /// past the source's end) to where it reaches its start. Nil when no reversed segment
    /// plays `pts`.
    /// ```
    ///   source    [2.000 frame 60)...[3.967 frame 119)4     reversed over target 2-4
    ///   target    2 [frame 119 2.033) ... [frame 60 4)
    /// ```
    private static func playedBackwards(pts: Time, duration: Time, track: CompositionTrack) throws -> (start: Time, end: Time)? {
        guard let segment = track.segments.first(where: { $0.isReversed && $0.source?.contains(pts) == true }),
              let source = segment.source,
              let start = try segment.compositionTime(forSourceTime: min(try pts + duration, source.end)),
              let end = try segment.compositionTime(forSourceTime: pts) else { return nil }
        return (start, end)
    }

    /// Where a frame that shows across a held time (`pts < held < pts + duration`) stops
    /// showing at the least: the end of the hold, plus what of the frame the segment after the
    /// hold plays. Nil when no hold holds it. (Its end mapped by itself falls short when the
    /// frame is the movie's last, or ends where a removed range starts.)
    private static func endThroughHold(pts: Time, duration: Time, holds: [(held: Time, index: Int)],
                                       track: CompositionTrack) throws -> Time? {
        let end = try pts + duration
        guard let hold = holds.first(where: { pts < $0.held && $0.held < end }) else { return nil }
        let target = track.segments[hold.index].target
        guard hold.index + 1 < track.segments.count else { return target.end }
        let next = track.segments[hold.index + 1]
        guard let source = next.source, let rate = next.rate, source.start == hold.held else { return target.end }
        return try target.end + (min(end, source.end) - hold.held).multiplied(by: rate.reciprocal)
    }

    /// The composition time at which a frame that starts at `pts` stops showing, when its end
    /// falls outside every segment (the last frame, or one before a removed range).
    /// A frame that shows to its segment's end stays on screen through the gaps that follow
    /// (when no black still shows them), to the timeline's end after a trailing gap.
    private static func endOfFrame(pts: Time, duration: Time, track: CompositionTrack) throws -> Time {
        guard let start = try track.compositionTimes(forSourceTime: pts).first,
              let index = track.segmentIndex(at: start), let rate = track.segments[index].rate else { return pts }
        var end = min(try start + duration.multiplied(by: rate.reciprocal), track.segments[index].target.end)
        var next = index + 1
        while end == track.segments[next - 1].target.end, next < track.segments.count, track.segments[next].isEmpty {
            end = track.segments[next].target.end
            next += 1
        }
        return end
    }
}
