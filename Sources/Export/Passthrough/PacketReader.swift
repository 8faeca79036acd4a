import Foundation
internal import CFFmpeg
import Media

/// The video packets of a movie by decode index, for passthrough: in the demuxer's order by
/// reading on (what every forward run asks for), and backwards (a reversed run of intra frames)
/// a block at a time: it seeks to the block's first packet, keeps the block's packets, and hands
/// them out from the last, so it holds at most ``blockSize`` packets whatever the run's length.
final class PacketReader {
    /// Packets kept by one backwards step.
    static let blockSize = 32

    private let input: InputFormatContext
    private let stream: Int
    /// Each packet's timestamp (decode order), and the decode index of each timestamp: how a
    /// packet read after a seek is recognised.
    private let ticks: [Int64]
    /// Made on the first seek: an export that only reads on never needs it.
    private lazy var index: [Int64: Int] = {
        var index: [Int64: Int] = [:]
        for (i, t) in ticks.enumerated() where index[t] == nil { index[t] = i }
        return index
    }()
    private let name: String
    /// The decode index of the packet the demuxer gives next; nil after a seek, until a packet
    /// is recognised.
    private var position: Int? = 0
    private var block: [Int: Packet] = [:]
    private let packet: Packet

    /// Reads stream `stream` of `input`, whose packets in decode order have timestamps `ticks`
    /// (as ``VideoScan`` read them: the presentation time, else the decode time).
    init(input: InputFormatContext, stream: Int, ticks: [Int64], name: String) throws {
        self.input = input
        self.stream = stream
        self.ticks = ticks
        self.name = name
        packet = try Packet()
    }

    /// The packet at decode index `wanted`, to be written (and so emptied) by the caller before
    /// the next call.
    func packet(at wanted: Int) throws -> Packet {
        if let kept = block.removeValue(forKey: wanted) { return kept }
        block.removeAll()
        if let position, wanted >= position {
            try skip(to: wanted)
            return packet
        }
        try fillBlock(endingAt: wanted)
        guard let kept = block.removeValue(forKey: wanted) else {
            throw ExportError.unsupported("\(name): video packet \(wanted) could not be found again to play it backwards")
        }
        return kept
    }

    /// Reads on until the packet at `wanted` is in `packet`.
    private func skip(to wanted: Int) throws {
        while try readVideo() {
            if position.map({ $0 - 1 == wanted }) ?? false { return }
        }
        throw ExportError.unsupported("\(name): video packet \(wanted) could not be read")
    }

    /// Keeps the packets `[wanted - blockSize + 1, wanted]`, read after a seek to the first.
    private func fillBlock(endingAt wanted: Int) throws {
        let first = max(0, wanted - Self.blockSize + 1)
        for attempt in 0..<2 {
            // The first attempt seeks to the block's first packet; a demuxer that lands after it
            // (a file without an index) is taken back to the start of the file.
            let target = attempt == 0 ? ticks[first] : -(Int64(1) << 40)
            if LibAVFormat.seekFrame(input.pointer, Int32(stream), target, AVSEEK_FLAG_BACKWARD) < 0 {
                _ = LibAVFormat.seekFile(input.pointer, -1, Int64.min, 0, 0, 0)
            }
            position = nil
            while try readVideo() {
                guard let at = position.map({ $0 - 1 }) else { continue }
                if at > first && block.isEmpty { break }
                if at >= first {
                    let copy = try Packet()
                    guard LibAVCodec.packetRef(copy.pointer, packet.pointer) >= 0 else {
                        throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "keeping a packet to play it backwards"))
                    }
                    block[at] = copy
                }
                if at >= wanted { return }
            }
            block.removeAll()
        }
    }

    /// Reads the next packet of the stream into `packet`, keeping `position` (recognising the
    /// packet by its timestamp after a seek); false at the end.
    private func readVideo() throws -> Bool {
        while try input.read(into: packet) {
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == stream else { continue }
            if let known = position {
                position = known + 1
            } else {
                let t = p.pts != sp_av_nopts_value() ? p.pts : p.dts
                position = index[t].map { $0 + 1 }
            }
            return true
        }
        return false
    }
}
