import Foundation
internal import CFFmpeg

/// Every packet of an mp4 or mov's streams as the file's index states it, without reading the
/// samples: libavformat's mov demuxer builds the index from the `moov` box when it opens the
/// file (`avformat_index_get_entry`: each sample's decode time, size, position and flags), and
/// the composition offsets come from the same box (``MP4CompositionOffsets``). An 8-hour
/// recording's index is read in milliseconds where reading its packets took seconds.
///
/// What the demuxer adds when it reads a packet (the constant that places presentation times,
/// the duration rule, skip-samples side data at the start and end) is learnt from the packets
/// it really reads at the file's head and tail, and every one of those must agree with the
/// index; otherwise, or where the index cannot be the whole truth (a fragmented or truncated
/// file, a stream without entries, an edit list that dropped samples), there is none and the
/// caller reads every packet as before.
struct IndexedPackets {
    /// One stream's packets, in decode order.
    struct Stream {
        /// Presentation timestamps and durations in the stream's time base.
        var pts: [Int64] = []
        var durations: [Int64] = []
        var sizes: [Int32] = []
        /// Packets an edit list hides (`AV_PKT_FLAG_DISCARD`).
        var discarded: [Bool] = []
        /// Where each packet's bytes lie in the file, and whether every packet is a keyframe.
        var positions: [Int64] = []
        var allKeyframes = true
        /// Per packet read at the head or tail: the samples its side data drops at its start and
        /// end, and its length in samples when its codec states it per packet (Opus).
        var read: [Int: (start: Int64, end: Int64, samples: Int64?)] = [:]
    }

    let streams: [Stream]

    /// Packets read at each end of every stream to check the index against.
    static let checked = 16

    /// The packets of streams `wanted` of `input` (an mp4 or mov just opened); nil where the
    /// index is not known to be the whole truth (see the type). Checking reads packets, which
    /// leaves `input` anywhere, other streams discarded: `moved` says so, and a caller that
    /// then reads every packet reads them from a fresh opening (an mp4 with a chapter track,
    /// whose packets the demuxer keeps to itself, was read from its tail: no video at all).
    init?(_ input: InputFormatContext, streams wanted: [Int], moved: inout Bool) {
        guard StreamInfoCache.statesEverything(input.pointer.pointee.iformat), input.clock == nil, !wanted.isEmpty,
              let offsets = MP4CompositionOffsets(path: input.path) else { return nil }
        var info = stat()
        guard stat(input.path, &info) == 0 else { return nil }
        var found: [Stream] = []
        var positions: [[Int64]] = []
        var decodeTimes: [[Int64]] = []
        for index in wanted {
            let st = input.stream(index).pointer
            let count = Int(LibAVFormat.indexEntriesCount(st))
            guard count > 0, st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { return nil }
            var stream = Stream()
            var pos: [Int64] = [], ts: [Int64] = []
            stream.pts.reserveCapacity(count); stream.sizes.reserveCapacity(count); stream.discarded.reserveCapacity(count)
            pos.reserveCapacity(count); ts.reserveCapacity(count)
            let composition = Self.expanded(offsets.tracks[st.pointee.id], count: count)
            guard let composition else { return nil }
            for i in 0..<count {
                guard let entry = LibAVFormat.indexEntry(st, Int32(i)) else { return nil }
                let e = entry.pointee
                // A sample past the end of the file (a truncated recording) is read for real.
                guard e.pos >= 0, e.pos + Int64(e.size) <= Int64(info.st_size) else { return nil }
                ts.append(e.timestamp)
                pos.append(e.pos)
                stream.pts.append(e.timestamp &+ composition[i])
                stream.sizes.append(e.size)
                stream.discarded.append(e.flags & AVINDEX_DISCARD_FRAME != 0)
                if e.flags & AVINDEX_KEYFRAME == 0 { stream.allKeyframes = false }
            }
            stream.positions = pos
            found.append(stream)
            positions.append(pos)
            decodeTimes.append(ts)
        }
        moved = true
        for other in 0..<input.streamCount where !wanted.contains(other) { input.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
        var check = IndexCheck(streams: found, positions: positions, decodeTimes: decodeTimes, wanted: wanted, input: input)
        guard check.readHead(), check.readTail(), let checked = check.result() else { return nil }
        streams = checked
    }

    /// The per-sample offsets of `runs` for `count` samples: zeros without runs; nil when the
    /// runs cover another number of samples (an edit list dropped some from the index).
    private static func expanded(_ runs: [(count: Int64, offset: Int64)]?, count: Int) -> [Int64]? {
        guard let runs else { return [Int64](repeating: 0, count: count) }
        guard runs.reduce(Int64(0), { $0 + $1.count }) == Int64(count) else { return nil }
        var offsets: [Int64] = []
        offsets.reserveCapacity(count)
        for run in runs { offsets.append(contentsOf: repeatElement(run.offset, count: Int(run.count))) }
        return offsets
    }
}

/// The packets ``IndexedPackets`` reads at the head and tail of a file to learn what the demuxer
/// adds to its index, and to check that every one agrees with it.
private struct IndexCheck {
    var streams: [IndexedPackets.Stream]
    let positions: [[Int64]]
    let decodeTimes: [[Int64]]
    let wanted: [Int]
    let input: InputFormatContext
    /// Per stream: presentation time minus the index's (decode time plus composition offset).
    var shift: [Int64?]
    /// Per stream: the durations read, by packet.
    var durations: [[Int: Int64]]
    /// Per stream: the packets read (by packet number).
    var seen: [Set<Int>]

    init(streams: [IndexedPackets.Stream], positions: [[Int64]], decodeTimes: [[Int64]], wanted: [Int], input: InputFormatContext) {
        self.streams = streams
        self.positions = positions
        self.decodeTimes = decodeTimes
        self.wanted = wanted
        self.input = input
        shift = Array(repeating: nil, count: streams.count)
        durations = Array(repeating: [:], count: streams.count)
        seen = Array(repeating: [], count: streams.count)
    }

    /// Reads from the start until every stream has shown its first ``IndexedPackets/checked``
    /// packets; false at any disagreement.
    mutating func readHead() -> Bool {
        var next = [Int](repeating: 0, count: streams.count)
        let positions = positions
        return read(limit: 4000) { slot, pos in
            let k = next[slot]
            next[slot] += 1
            return k < positions[slot].count && positions[slot][k] == pos ? k : nil
        } done: { next.indices.allSatisfy { next[$0] >= min(IndexedPackets.checked, positions[$0].count) } }
    }

    /// Seeks to shortly before the last ``IndexedPackets/checked`` packets of every stream and
    /// reads to the end; false at any disagreement, or when a stream's last packet is not read.
    mutating func readTail() -> Bool {
        var start = Int64.max
        // A stream whose last packets the head showed (a timecode track's one sample) needs no tail.
        for (slot, index) in wanted.enumerated() where !(max(0, positions[slot].count - IndexedPackets.checked)..<positions[slot].count).allSatisfy(seen[slot].contains) {
            let times = decodeTimes[slot]
            let tb = input.stream(index).pointer.pointee.time_base
            start = min(start, av_rescale_q(times[max(0, times.count - IndexedPackets.checked)], tb, AVRational(num: 1, den: sp_av_time_base())))
        }
        guard start != .max else { return true }
        guard LibAVFormat.seekFrame(input.pointer, -1, start, AVSEEK_FLAG_BACKWARD) >= 0 else { return false }
        // Packet numbers by position, for each stream's last stretch.
        let window = 20_000
        let positions = positions
        let lookup = positions.map { pos in
            Dictionary(pos.indices.suffix(window).map { (pos[$0], $0) }, uniquingKeysWith: { a, _ in a })
        }
        guard read(limit: 50_000, number: { slot, pos in lookup[slot][pos] }, done: { false }) else { return false }
        return positions.indices.allSatisfy { slot in
            let n = positions[slot].count
            return (max(0, n - IndexedPackets.checked)..<n).allSatisfy { seen[slot].contains($0) }
        }
    }

    /// Reads packets until `done` or the end, at most `limit`; each is numbered by `number`
    /// (nil: not the index's) and checked. False at a read error, a disagreement or the limit.
    private mutating func read(limit: Int, number: (Int, Int64) -> Int?, done: () -> Bool) -> Bool {
        guard let packet = try? Packet() else { return false }
        let slots = Dictionary(uniqueKeysWithValues: wanted.enumerated().map { ($1, $0) })
        var count = 0
        while !done() {
            guard count < limit, let more = try? input.read(into: packet) else { return false }
            guard more else { return true }
            count += 1
            let p = packet.pointer.pointee
            guard let slot = slots[Int(p.stream_index)] else { continue }
            guard p.pts != sp_av_nopts_value(), let k = number(slot, p.pos) else { return false }
            let delta = p.pts &- streams[slot].pts[k]
            guard (shift[slot] ?? delta) == delta, (p.flags & AV_PKT_FLAG_DISCARD != 0) == streams[slot].discarded[k],
                  p.size == streams[slot].sizes[k], !streams[slot].allKeyframes || p.flags & AV_PKT_FLAG_KEY != 0 else { return false }
            shift[slot] = delta
            durations[slot][k] = p.duration
            seen[slot].insert(k)
            let trim = Prober.trimmedSamples(p)
            let opus = input.stream(wanted[slot]).parameters.pointee.codec_id == AV_CODEC_ID_OPUS
            let samples = opus ? p.data.flatMap { OpusPacket.samples(UnsafeBufferPointer(start: $0, count: Int(p.size))) }.map(Int64.init) : nil
            streams[slot].read[k] = (trim.start, trim.end, samples)
        }
        return true
    }

    /// The streams with their presentation times shifted as read and every packet's duration:
    /// the following packet's decode time less its own, or one constant, whichever every
    /// packet read shows (the last packet's as read); nil when neither does.
    func result() -> [IndexedPackets.Stream]? {
        var out = streams
        for slot in out.indices {
            guard let shift = shift[slot] else { return nil }
            let ts = decodeTimes[slot]
            let n = ts.count
            let read = durations[slot]
            guard let last = read[n - 1] else { return nil }
            let interior = read.filter { $0.key < n - 1 }
            let followsNext = interior.allSatisfy { $0.value == ts[$0.key + 1] - ts[$0.key] }
            let constant = Set(interior.values).count == 1 ? interior.values.first : nil
            guard followsNext || constant != nil else { return nil }
            var durations = [Int64](repeating: constant ?? 0, count: n)
            if followsNext { for i in 0..<(n - 1) { durations[i] = ts[i + 1] - ts[i] } }
            durations[n - 1] = last
            out[slot].durations = durations
            if shift != 0 { out[slot].pts = out[slot].pts.map { $0 &+ shift } }
        }
        return out
    }
}
