import Foundation
import Composition
internal import CFFmpeg
import Media

/// One pass over a written passthrough output's packets (``ExportVerifier``): each video packet,
/// in decode order, against the plan's entry for it (its times, exact in the output timescale;
/// a copied packet's bytes against the source packet the plan names, read as the export read
/// it), and the first and last time of every other stream, for the audio's sync.
struct PacketCheck {
    let plan: PassthroughPlan
    let rewritten: Set<Int>
    let source: PacketReader
    let outputStream: Int
    let timeBase: AVRational

    /// Frames the output shows, copied packets equal to their source's, and what differs.
    private(set) var shown = 0
    private(set) var copiedIdentical = 0
    private(set) var differences: [ExportVerification.Difference] = []
    /// Each other stream's first presentation time and the end of its last packet, in ticks.
    private var extents: [Int: (start: Int64, end: Int64)] = [:]

    init(plan: PassthroughPlan, rewritten: Set<Int>, movie: URL, stream: Int, outputStream: Int, timeBase: AVRational) throws {
        self.plan = plan
        self.rewritten = rewritten
        let input = try InputFormatContext(path: movie.path)
        input.readOnly(stream: stream)
        source = try PacketReader(input: input, stream: stream, ticks: plan.scan.decodeTicks, name: movie.lastPathComponent)
        self.outputStream = outputStream
        self.timeBase = timeBase
    }

    /// Reads every packet of `input` (the output).
    mutating func read(_ input: InputFormatContext) throws {
        let packet = try Packet()
        let entries = plan.map.entries
        var n = 0
        while try input.read(into: packet) {
            let p = packet.pointer.pointee
            let index = Int(p.stream_index)
            guard index == outputStream else {
                if p.pts != sp_av_nopts_value() {
                    let end = p.pts + max(p.duration, 0)
                    extents[index] = extents[index].map { (min($0.start, p.pts), max($0.end, end)) } ?? (p.pts, end)
                }
                continue
            }
            defer { n += 1 }
            guard n < entries.count else { continue }
            let found = try time(p.pts)
            if p.flags & AV_PKT_FLAG_DISCARD == 0 {
                shown += 1
            }
            let planned = Time(value: entries[n].pts, timescale: plan.map.timescale)
            let decodeTime = p.dts != sp_av_nopts_value() ? try time(p.dts) : nil
            if found != planned || decodeTime.map({ $0 != Time(value: entries[n].dts, timescale: plan.map.timescale) }) ?? false {
                if differences.count < 100 { differences.append(.frameTime(frame: n, planned: planned, found: found)) }
            }
            try compareCopy(n, packet: packet)
        }
        if n != entries.count || shown != plan.videoFrames {
            differences.insert(.frameCount(planned: plan.videoFrames, found: shown), at: 0)
        }
        renumberTimes()
    }

    /// A copied (not rewritten) packet's bytes against its source packet's.
    private mutating func compareCopy(_ n: Int, packet: Packet) throws {
        let entry = plan.map.entries[n]
        let copied: Int?
        if let smart = plan.video.smart {
            if case .copy(let i) = smart.items[entry.index] { copied = i } else { copied = nil }
        } else {
            copied = entry.index
        }
        guard let i = copied, !rewritten.contains(n) else { return }
        // The reader's packet is kept alive while its bytes are read (a packet read backwards
        // is the only reference to its data).
        let read = try source.packet(at: i)
        let p = packet.pointer.pointee
        let same = withExtendedLifetime(read) {
            let original = read.pointer.pointee
            return p.size == original.size && (p.size == 0 || memcmp(p.data, original.data, Int(p.size)) == 0)
        }
        if same {
            copiedIdentical += 1
        } else if differences.count < 100 {
            differences.append(.copiedBytes(time: Time(value: entry.pts, timescale: plan.map.timescale), source: plan.scan.packets[i].pts))
        }
    }

    /// Frame-time differences name frames by decode position while reading; this names them by
    /// their rank in presentation order, as a user counts frames.
    private mutating func renumberTimes() {
        guard differences.contains(where: { if case .frameTime = $0 { true } else { false } }) else { return }
        let times = plan.frames.map(\.time)
        differences = differences.map { difference in
            guard case .frameTime(let n, let planned, let found) = difference else { return difference }
            return .frameTime(frame: times.firstIndex(of: planned) ?? n, planned: planned, found: found)
        }
    }

    /// Stream `index`'s start and end in seconds: its stated start time and duration where the
    /// container states them (an mp4's edit list trims the encoder's priming and padding), else
    /// its packets' first time and last end.
    func extent(of index: Int, stream: StreamView) -> (start: Double, end: Double)? {
        let s = stream.pointer.pointee
        let tb = Double(s.time_base.num) / Double(s.time_base.den)
        if s.start_time != sp_av_nopts_value() && s.duration != sp_av_nopts_value() && s.duration > 0 {
            return (Double(s.start_time) * tb, Double(s.start_time + s.duration) * tb)
        }
        guard let packets = extents[index] else { return nil }
        return (Double(packets.start) * tb, Double(packets.end) * tb)
    }

    /// `ticks` of the output's video time base as an exact time.
    private func time(_ ticks: Int64) throws -> Time {
        try Time(value: ticks, timescale: 1).multiplied(by: Rational(Int64(timeBase.num), Int64(timeBase.den)))
    }
}
