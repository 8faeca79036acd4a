import Foundation
import Composition
internal import CFFmpeg

/// Every video packet's timing and the keyframes, from one demux-only pass over the movie
/// (no decoding). Passthrough maps these packets; the constant-rate export plans which frames
/// to decode from them.
package struct VideoScan {
    /// In decode order; times are source times (the first presented frame is 0).
    package var packets: [SourcePacket] = []
    /// Presentation times of keyframes, sorted.
    var keyframes: [Time] = []
    /// The first presented frame's timestamp: source time 0.
    package var origin: Time = .zero
    package var timescale: Int32 = 1
    /// The stream's time base and the first presented frame's timestamp in it.
    var timeBase = AVRational(num: 1, den: 1)
    var firstTicks: Int64 = 0
    /// Every frame's presentation timestamp in stream ticks, sorted: frame i of the movie.
    package var presentationTicks: [Int64] = []
    /// Frame i's source time, parallel to `presentationTicks`, and the end of the last frame.
    package var presentationTimes: [Time] = []
    package var end: Time = .zero
    /// Whether the movie lists more frames than could be read (truncated or damaged): then the
    /// export stops at ``end``.
    package var truncated = false
    /// Every packet's timestamp in stream ticks, in decode order (the presentation time, else
    /// the decode time): how a packet read after a seek is recognised.
    package var decodeTicks: [Int64] = []
    /// Whether frame i (in presentation order) is a keyframe.
    package var isKey: [Bool] = []
    /// Where passthrough may end and resume copying as the packets are: resuming only at IDR
    /// pictures (what `--keyframe-cuts` moves cuts to).
    package var cutPoints = CutPoints(decodeOrder: [], keyframe: [], end: .zero)
    /// Where a smart cut may end and resume copying: also at the open-GOP recovery points that
    /// ``OpenGOPRewriter`` rewrites as IDR pictures (``OpenGOPResume``), and at HEVC CRA
    /// pictures, renamed BLA where copying resumes (``HEVCParameterSets/resumed(_:)``).
    package var smartCutPoints = CutPoints(decodeOrder: [], keyframe: [], end: .zero)
    /// Decode indices of the H.264 recovery points a smart cut may resume at.
    package var recoveryPoints: Set<Int> = []
    /// Why the stream's open-GOP recovery points cannot be rewritten, when it has some.
    package var openGOPRefusal: String?

    /// The earliest presentation time among the video packets up to the third keyframe (at
    /// most 300 packets): the movie's first frame, and so ``origin``, in every ordinary stream.
    /// Nil when nothing can be read. Cheap: it reads the start of the movie only.
    package static func leadingOrigin(movie: URL, stream index: Int) throws -> Time? {
        let input = try InputFormatContext(path: movie.path)
        input.readOnly(stream: index)
        let tb = input.stream(index).pointer.pointee.time_base
        let packet = try Packet()
        var earliest: Int64?
        var keyframes = 0, count = 0
        while keyframes < 3 && count < 300 {
            // A packet that cannot be read ends this look-ahead, which only lets the audio start
            // early; the full scan that follows reports the damage and what is lost.
            guard let more = try? input.read(into: packet), more else { break }
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == index else { continue }
            let pts = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            guard pts != sp_av_nopts_value() else { continue }
            earliest = min(earliest ?? pts, pts)
            if p.flags & AV_PKT_FLAG_KEY != 0 { keyframes += 1 }
            count += 1
        }
        guard let earliest else { return nil }
        return try Time(value: earliest, timescale: 1).multiplied(by: Rational(Int64(tb.num), Int64(tb.den)))
    }

    package init(movie: URL, stream index: Int, name: String, warning: (String) -> Void) throws {
        try self.init(input: InputFormatContext(path: movie.path), stream: index, name: name, warning: warning)
    }

    /// Scans `input` to its end (callers that go on reading it seek back first). Without
    /// `keepPackets` the decode-order packet list (only passthrough maps packets) is not built,
    /// which keeps what grows with the movie's length smaller.
    package init(input: InputFormatContext, stream index: Int, name: String, keepPackets: Bool = true,
                 warning: (String) -> Void) throws {
        input.readOnly(stream: index)
        let tb = input.stream(index).pointer.pointee.time_base
        let demuxed = try Self.demux(input, stream: index, name: name, warning: warning)
        let (raw, hidden, resumable, damaged) = (demuxed.packets, demuxed.hidden, demuxed.resumable, demuxed.damaged)
        openGOPRefusal = demuxed.openGOPRefusal
        if let declared = Self.framesMissing(input, stream: index, read: raw.map(\.pts)) {
            truncated = true
            warning("\(name) lists \(declared) video frames but only \(raw.count) could be read; it is truncated or damaged, and the export stops where the readable video ends")
        }
        let shown = raw.indices.contains { !hidden[$0] } ? raw.indices.filter { !hidden[$0] } : Array(raw.indices)
        let order = shown.sorted { raw[$0].pts < raw[$1].pts }
        guard let first = order.first else {
            throw MediaError.notMedia(path: input.path, reason: "its video stream has no frames")
        }
        let firstPts = raw[first].pts
        let base = try Rational(Int64(tb.num), Int64(tb.den))
        func seconds(_ ticks: Int64) throws -> Time { try Time(value: ticks - firstPts, timescale: 1).multiplied(by: base) }
        origin = try Time(value: firstPts, timescale: 1).multiplied(by: base)
        timescale = tb.den / max(1, tb.num)
        timeBase = tb
        firstTicks = firstPts
        // A frame without a duration lasts until the next one in presentation order.
        var durations = raw.map(\.duration)
        for (rank, i) in order.enumerated() where durations[i] == 0 {
            if rank + 1 < order.count { durations[i] = raw[order[rank + 1]].pts - raw[i].pts }
            else { durations[i] = rank > 0 ? durations[order[rank - 1]] : 1 }
        }
        for i in raw.indices where durations[i] == 0 { durations[i] = durations[order[0]] }
        // Every packet's source time, in decode order, worked out once.
        let times = try raw.map { try seconds($0.pts) }
        if keepPackets {
            packets.reserveCapacity(raw.count)
            for (i, r) in raw.enumerated() {
                packets.append(SourcePacket(pts: times[i], duration: try seconds(firstPts + max(durations[i], 1)),
                                                      damaged: damaged[i], hidden: hidden[i] && shown.count < raw.count))
            }
            let lost = raw.indices.filter { damaged[$0] }
            if let first = lost.first, let last = lost.last {
                let times = lost.map { times[$0] }
                let which = lost.count == 1 ? "video packet \(first) of \(name) (source \(times[0])) is damaged; passthrough leaves it out"
                    : "\(lost.count) video packets of \(name) (\(first)-\(last) in decode order, source \(times.min()!)-\(times.max()!)) are damaged or depend on a damaged one; passthrough leaves them out"
                warning(which + ", so the frame before stays on screen")
            }
        }
        if keepPackets { decodeTicks = raw.map(\.pts) }
        presentationTicks = order.map { raw[$0].pts }
        presentationTimes = order.map { times[$0] }
        isKey = order.map { raw[$0].key }
        keyframes = zip(presentationTimes, isKey).filter(\.1).map(\.0)
        let last = order[order.count - 1]
        end = try seconds(raw[last].pts + max(durations[last], 1))
        cutPoints = CutPoints(decodeOrder: times, keyframe: resumable, end: end)
        recoveryPoints = Set(demuxed.recovery.indices.filter { demuxed.recovery[$0] })
        let smartResumable = resumable.indices.map { resumable[$0] || demuxed.recovery[$0] || demuxed.cleanRandomAccess[$0] }
        smartCutPoints = smartResumable == resumable ? cutPoints : CutPoints(decodeOrder: times, keyframe: smartResumable, end: end)
    }

    /// The stream's packets in decode order, as the demuxer gives them.
    private struct Demuxed {
        var packets: [(pts: Int64, duration: Int64, key: Bool)]
        /// Frames an edit list hides: decoded as references, never shown.
        var hidden: [Bool]
        /// Keyframes a passthrough run may resume from (see RandomAccessPicture).
        var resumable: [Bool]
        /// Damaged packets, and those decoded after one up to the next fresh start.
        var damaged: [Bool]
        /// Open-GOP recovery points a smart cut may resume at (see OpenGOPResume), and why there
        /// are none when the stream has such keyframes but they cannot be rewritten.
        var recovery: [Bool]
        var openGOPRefusal: String?
        /// Undamaged HEVC CRA keyframes (see ``smartCutPoints``).
        var cleanRandomAccess: [Bool]
    }

    /// Reads every packet of stream `index` of `input`; a damaged packet ends the reading, with a warning.
    private static func demux(_ input: InputFormatContext, stream index: Int, name: String,
                              warning: (String) -> Void) throws -> Demuxed {
        let tb = input.stream(index).pointer.pointee.time_base
        let packet = try Packet()
        var raw: [(pts: Int64, duration: Int64, key: Bool)] = []
        var hidden: [Bool] = [], resumable: [Bool] = [], damaged: [Bool] = [], recovery: [Bool] = [], clean: [Bool] = []
        let randomAccess = RandomAccessPicture(parameters: input.stream(index).parameters)
        var openGOP = OpenGOPCheck(parameters: input.stream(index).parameters)
        let check = DamageCheck(stream: input.stream(index))
        let reorders = input.stream(index).parameters.pointee.video_delay > 0
        raw.reserveCapacity(Int(max(0, min(input.stream(index).pointer.pointee.nb_frames, 1 << 24))) + 16)
        while true {
            let more: Bool
            do { more = try input.read(into: packet) } catch {
                warning("stopped reading \(name) at a damaged packet after \(raw.count) frames: \(error)")
                break
            }
            guard more else { break }
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == index else { continue }
            // A damaged packet, and every one decoded after it up to the next keyframe that
            // decoding can start from, would decode wrongly: they are marked and never copied.
            let key = p.flags & AV_PKT_FLAG_KEY != 0
            let startsAfresh = key && randomAccess.isRandomAccess(packet.pointer)
            // A damaged packet, and what depends on it, is marked; one flagged at a join that
            // lost nothing is not (see DamageCheck).
            let verdict = check.next(packet, startsAfresh: startsAfresh)
            for earlier in verdict.earlier ?? 0..<0 {
                damaged[earlier] = true
                resumable[earlier] = false
                recovery[earlier] = false
                clean[earlier] = false
            }
            damaged.append(verdict.damaged)
            let shownAt = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            recovery.append(openGOP.resumes(packet.pointer, index: raw.count, pts: shownAt, key: key, startsAfresh: startsAfresh) && !verdict.damaged)
            // Without a presentation time a frame is shown when decoded, unless frames are
            // reordered, which `Prober` refuses at open (see there).
            let pts = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            if p.pts == sp_av_nopts_value() && reorders {
                throw MediaError.notMedia(path: input.path, reason: "its video reorders its frames but states only their decode order; open it again to be told how to convert it")
            }
            raw.append((pts, max(p.duration, 0), key))
            hidden.append(p.flags & AV_PKT_FLAG_DISCARD != 0)
            resumable.append(startsAfresh && !verdict.damaged)
            clean.append(key && !verdict.damaged && randomAccess.isCleanRandomAccess(packet.pointer))
        }
        for earlier in check.finish() ?? 0..<0 {
            damaged[earlier] = true
            resumable[earlier] = false
            recovery[earlier] = false
            clean[earlier] = false
        }
        if !openGOP.rewritable { recovery = recovery.map { _ in false } }
        for withdrawn in openGOP.withdrawn { recovery[withdrawn] = false }
        return Demuxed(packets: raw, hidden: hidden, resumable: resumable, damaged: damaged, recovery: recovery,
                       openGOPRefusal: openGOP.refusal, cleanRandomAccess: clean)
    }

    /// The frame count the stream declares, when more frames are missing than AVI's repeats
    /// explain (the movie is truncated); nil when every declared frame was read.
    private static func framesMissing(_ input: InputFormatContext, stream index: Int, read pts: [Int64]) -> Int64? {
        let tb = input.stream(index).pointer.pointee.time_base
        let declared = input.stream(index).pointer.pointee.nb_frames
        // AVI counts a 0-byte index entry as a frame ("show the previous one again"), which the
        // demuxer skips: a hole in timestamps that count frames. Those are not damage.
        let isFrameCounter = input.stream(index).pointer.pointee.avg_frame_rate.num > 0
            && av_cmp_q(av_inv_q(input.stream(index).pointer.pointee.avg_frame_rate), tb) == 0
        var repeats: Int64 = 0
        if isFrameCounter, let low = pts.min(), let high = pts.max() {
            repeats = max(0, high - low + 1 - Int64(pts.count))
        }
        return declared > Int64(pts.count) + repeats ? declared : nil
    }

    package var frameCount: Int { presentationTicks.count }

    /// The frame on screen at source time `s`: the last one presented at or before it (the
    /// first frame for times before it). Binary search in exact time.
    package func frame(at s: Time) -> Int {
        presentationTimes.lastIndex(notAfter: s)
    }

    /// The frame presented at exactly `ticks`, if any.
    func frame(ticks: Int64) -> Int? {
        var low = 0, high = presentationTicks.count
        while low < high {
            let mid = (low + high) / 2
            if presentationTicks[mid] < ticks { low = mid + 1 } else { high = mid }
        }
        return low < presentationTicks.count && presentationTicks[low] == ticks ? low : nil
    }

    /// The last keyframe at or before frame `i`.
    package func keyframe(before i: Int) -> Int {
        var k = i
        while k > 0 && !isKey[k] { k -= 1 }
        return k
    }
}
