import Foundation
import Synchronization
internal import CFFmpeg

/// Where a file's clock starts again, and the offsets that make it run on: two transport-stream
/// recordings joined with `cat` (each starting at 1.4 s, say), whose second half repeats the
/// first's timestamps.
///
/// Like ffmpeg's discontinuity handling (`-dts_delta_threshold`), for demuxers that declare
/// discontinuous timestamps (`AVFMT_TS_DISCONT`: MPEG-TS and -PS, Ogg): when an audio or video
/// stream's decode time steps back by more than 0.1 s, or forward by more than 10 s, every stream from there on
/// is moved by one offset, so that this packet follows the stream's previous one plus its
/// duration and the streams keep their sync. When the primary video stream was not the stream
/// that found the restart, its first packet after it sets the offset instead, so that its
/// frames follow on exactly (audio packets are no finer than 21 ms).
///
/// A restart is placed by byte position, not by reading order: the demuxer hands a packet over
/// when its PES packet ends, so the first recording's last video frame comes out after the
/// second recording's first audio, and each keeps its own recording's offset. Because the
/// offsets belong to positions in the file, they hold after any seek: ``InputFormatContext``
/// applies them to every packet it reads, so the media index (`Prober`) and every export
/// reader see the same single clock, and its `seek` lands by byte on the recorded keyframe at
/// or before a time on that clock (seeking by time would find the repeated times of either
/// recording). Sums wrap rather than trap: a hostile file's timestamps may be anything.
package struct ClockRestarts: Sendable {
    struct Restart: Sendable {
        /// The byte position from which the offset holds.
        var position: Int64
        /// Added to every timestamp from `position` on, in `AV_TIME_BASE` units.
        var offset: Int64
        /// Whether the primary video stream set the offset.
        var byPrimary: Bool
        /// Where the clock started again, in `AV_TIME_BASE` units on the running clock: the
        /// presentation time of the packet whose stream set the offset.
        var at: Int64
    }

    /// A keyframe to seek to by byte: its position, its raw presentation time and the segment
    /// (restarts before it) whose offset it takes.
    struct SeekPoint: Sendable {
        let position: Int64
        let time: Int64
        let segment: Int
    }

    private(set) var restarts: [Restart] = []
    /// Per stream, keyframes at least 0.2 s apart, in reading order.
    private(set) var seekPoints: [[SeekPoint]] = []
    /// Per stream, where its last packet ends on the running clock (its time base).
    private(set) var ends: [Int64] = []
    /// Packets whose timestamp alone jumps away and back (damaged), by byte position, with the
    /// shift (their stream's time base) that puts them back where their stream's clock stood:
    /// every reader reads them there, so the frame keeps its place and the frames decoded from
    /// it their reference.
    private(set) var outliers: [Int64: Int64] = [:]
    /// Primary video packets whose presentation time alone lies more than 10 s from their
    /// decode time (a damaged PTS), by byte position: read as damaged (their presentation time
    /// set to their decode time and flagged corrupt), so passthrough leaves them out.
    private(set) var damagedPresentation: Set<Int64> = []
    /// Those packets' streams and where their stream's clock stood (its time base).
    private(set) var outlierTimes: [(stream: Int, at: Int64)] = []

    /// The segment (number of restarts before it) of a packet at byte `position`.
    func segment(at position: Int64) -> Int {
        var low = 0, high = restarts.count
        while low < high {
            let mid = (low + high) / 2
            if restarts[mid].position <= position { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The offset of `segment`, in `AV_TIME_BASE` units.
    func offset(_ segment: Int) -> Int64 { segment == 0 ? 0 : restarts[segment - 1].offset }

    /// The byte position of the last keyframe of `stream` at or before `time` (its time base, on
    /// the running clock); the first one's when none is.
    func seekPosition(stream: Int, time: Int64, base: AVRational) -> Int64? {
        guard stream < seekPoints.count, let first = seekPoints[stream].first else { return nil }
        let corrected = { (p: SeekPoint) in p.time &+ av_rescale_q(offset(p.segment), AVRational(num: 1, den: sp_av_time_base()), base) }
        return seekPoints[stream].last { corrected($0) <= time }?.position ?? first.position
    }

    private static let cache = Mutex<[String: ClockRestarts]>([:])

    /// The restarts of the file at `path`, found once per file, size and modification time.
    static func of(path: String) throws(MediaError) -> ClockRestarts {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let key = "\(path)|\(size)|\(modified)"
        if let known = cache.withLock({ $0[key] }) { return known }
        let input = try InputFormatContext(path: path, followingClockRestarts: false)
        let found = try scan(input)
        cache.withLock { $0[key] = found }
        return found
    }

    /// Reads every packet of `input` (which must not correct them itself).
    static func scan(_ input: InputFormatContext) throws(MediaError) -> ClockRestarts {
        var scanner = Scanner(input)
        let packet = try Packet()
        // A damaged tail ends the scan; what was read so far is still true.
        while (try? input.read(into: packet)) == true {
            let p = packet.pointer.pointee
            let s = Int(p.stream_index)
            guard s < scanner.count else { continue }
            let raw = p.dts != sp_av_nopts_value() ? p.dts : p.pts
            guard raw != sp_av_nopts_value() else { continue }
            scanner.take(Scanner.Read(stream: s, raw: raw, pts: p.pts != sp_av_nopts_value() ? p.pts : raw, position: p.pos,
                                      duration: p.duration, key: p.flags & AV_PKT_FLAG_KEY != 0))
        }
        scanner.finish()
        return scanner.found
    }
}

extension ClockRestarts {
    /// The scan's state. A packet whose time jumps is held until the next packet of its stream:
    /// if that one follows on from the clock before the jump, the jump was one damaged
    /// timestamp (a flipped bit put a frame of a 2 s recording 2982 s later), and the packet is
    /// read back where its stream's clock stood (``outliers``); otherwise the clock starts again
    /// at it.
    struct Scanner {
        struct Read {
            let stream: Int
            let raw: Int64
            let pts: Int64
            let position: Int64
            let duration: Int64
            let key: Bool
        }

        let input: InputFormatContext
        let count: Int
        var found = ClockRestarts()
        let primary: Int?
        let timed: [Bool]
        let avBase = AVRational(num: 1, den: sp_av_time_base())
        var last: [Int64?], next: [Int64?]
        var segmentOf: [Int]
        var held: [Read?]

        init(_ input: InputFormatContext) {
            self.input = input
            count = input.streamCount
            found.seekPoints = Array(repeating: [], count: count)
            found.ends = Array(repeating: .min, count: count)
            primary = (0..<input.streamCount).first {
                let stream = input.stream($0)
                return stream.parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            }
            // Only audio and video find restarts, as in ffmpeg: subtitles and data are sparse.
            timed = (0..<input.streamCount).map { [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO].contains(input.stream($0).parameters.pointee.codec_type) }
            (last, next) = (Array(repeating: nil, count: count), Array(repeating: nil, count: count))
            segmentOf = Array(repeating: 0, count: count)
            held = Array(repeating: nil, count: count)
        }

        private func base(_ s: Int) -> AVRational { input.stream(s).pointer.pointee.time_base }
        private func ticks(_ avTime: Int64, _ s: Int) -> Int64 { av_rescale_q(avTime, avBase, base(s)) }

        /// Whether `read`, on the clock as it runs now, steps back more than 0.1 s or forward
        /// more than 10 s from its stream's previous packet (on neither its position's clock nor
        /// the newest restart's: a PES packet that began before a restart may be handed over after it).
        private func jumps(_ read: Read) -> Bool {
            guard timed[read.stream], let l = last[read.stream], let n = next[read.stream], read.position >= 0 else { return false }
            func off(_ t: Int64) -> Bool {
                t < l &- ticks(Int64(sp_av_time_base()) / 10, read.stream) || t > n &+ ticks(10 * Int64(sp_av_time_base()), read.stream)
            }
            let k = found.segment(at: read.position), newest = found.restarts.count
            return off(read.raw &+ ticks(found.offset(k), read.stream)) && (k == newest || off(read.raw &+ ticks(found.offset(newest), read.stream)))
        }

        mutating func take(_ read: Read) {
            var read = read
            let s = read.stream
            if s == primary, read.position >= 0, read.pts != read.raw,
               abs(read.pts &- read.raw) > ticks(10 * Int64(sp_av_time_base()), s) {
                found.damagedPresentation.insert(read.position)
                found.outlierTimes.append((stream: s, at: read.raw))
                read = Read(stream: s, raw: read.raw, pts: read.raw, position: read.position, duration: read.duration, key: read.key)
            }
            if let waiting = held[s] {
                held[s] = nil
                if !jumps(waiting) {
                    // A restart another stream found since puts it on the running clock.
                    process(waiting)
                } else if !jumps(read), let expected = next[s] {
                    // The clock runs on after the held packet: it alone was out of step, and
                    // goes back where its stream's clock stood.
                    let shift = expected &- waiting.raw
                    found.outliers[waiting.position] = shift
                    found.outlierTimes.append((stream: s, at: expected))
                    process(Read(stream: s, raw: expected, pts: waiting.pts &+ shift, position: waiting.position,
                                 duration: waiting.duration, key: waiting.key))
                } else {
                    process(waiting)
                }
            } else if s == primary, jumps(read) {
                // (The primary video's packets only: audio at a join may lead the video it
                // belongs with, and the video's next packet says whether the clock started again.)
                held[s] = read
                return
            }
            process(read)
        }

        /// At the end: a jump that nothing came after is taken as it is.
        mutating func finish() {
            for case let waiting? in held { process(waiting) }
            held = Array(repeating: nil, count: count)
        }

        /// The original scan step for one packet (restarts, ends, seek points).
        private mutating func process(_ read: Read) {
            let s = read.stream
            let base = self.base(s)
            func ticks(_ avTime: Int64) -> Int64 { av_rescale_q(avTime, avBase, base) }
            let pts = read.pts, raw = read.raw
            var k = read.position >= 0 ? found.segment(at: read.position) : segmentOf[s]
            var corrected = raw &+ ticks(found.offset(k))
            if timed[s], let l = last[s], let n = next[s] {
                func jumps(_ t: Int64) -> Bool { t < l &- ticks(Int64(sp_av_time_base()) / 10) || t > n &+ ticks(10 * Int64(sp_av_time_base())) }
                let newest = found.restarts.count
                if jumps(corrected) && read.position >= 0 {
                    if k == newest {
                        let offset = found.offset(k) &+ av_rescale_q(n &- corrected, base, avBase)
                        found.restarts.append(Restart(position: read.position, offset: offset, byPrimary: s == primary, at: av_rescale_q(pts, base, avBase) &+ offset))
                        k = newest + 1
                        corrected = raw &+ ticks(offset)
                    } else if k == newest - 1, !jumps(raw &+ ticks(found.offset(newest))) {
                        // The newest restart's recording starts here already: a PES packet that
                        // began before the one that found the restart, handed over after it.
                        found.restarts[newest - 1].position = read.position
                        k = newest
                        corrected = raw &+ ticks(found.offset(k))
                    }
                }
            }
            if s == primary, k > 0, k == found.restarts.count, !found.restarts[k - 1].byPrimary, segmentOf[s] < k, let n = next[s] {
                // The primary video's first packet after a restart another stream found: its
                // frames follow on exactly; the streams already read after the restart move too.
                let delta = av_rescale_q(n &- corrected, base, avBase)
                found.restarts[k - 1].offset &+= delta
                found.restarts[k - 1].byPrimary = true
                found.restarts[k - 1].at = av_rescale_q(pts &- raw &+ n, base, avBase)
                for other in 0..<count where other != s && segmentOf[other] == k {
                    let b = input.stream(other).pointer.pointee.time_base
                    last[other] = last[other].map { $0 &+ av_rescale_q(delta, avBase, b) }
                    next[other] = next[other].map { $0 &+ av_rescale_q(delta, avBase, b) }
                }
                corrected = n
            }
            let step = last[s].map { corrected &- $0 } ?? 0
            last[s] = corrected
            next[s] = corrected &+ (read.duration > 0 ? read.duration : max(0, step))
            let shift = corrected &- raw
            found.ends[s] = max(found.ends[s], pts &+ shift &+ max(0, read.duration))
            if read.key, read.position >= 0 {
                let previous = found.seekPoints[s].last
                if previous.map({ $0.segment != k || pts &- $0.time >= ticks(Int64(sp_av_time_base()) / 5) }) ?? true {
                    found.seekPoints[s].append(SeekPoint(position: read.position, time: pts, segment: k))
                }
            }
            segmentOf[s] = k
        }
    }
}
