import Foundation
internal import CFFmpeg
import Media

/// Decodes a few chosen packets of one video stream in a single pass over the file, without
/// decoding the rest: each chosen packet is decoded from the keyframe before it (from the one
/// before that when its picture is shown before that keyframe's, a leading picture of an open
/// GOP), and decoding goes on only while a chosen picture is still to come out of the decoder.
/// What `export --verify` decodes of the output and of the source.
struct PictureSampler {
    let path: String
    let stream: Int
    /// Crop each picture exactly as its stream's cropping window says (FFmpeg's decoders
    /// otherwise keep the left edge aligned, showing a cropped picture wider).
    var unaligned = false

    /// Decodes the packets at `wanted` (positions among the stream's packets, in file order) and
    /// hands each one's picture to `deliver` with its position. Returns the positions that gave
    /// no picture (damaged, or missing from the file).
    func decode(_ wanted: Set<Int>, deliver: (Int, UnsafePointer<AVFrame>) throws -> Void) throws -> [Int] {
        guard !wanted.isEmpty else { return [] }
        let input = try InputFormatContext(path: path)
        input.readOnly(stream: stream)
        let decoder = try CodecContext.decoder(for: input.stream(stream), threads: FrameDecoder.threadCount())
        // Read by the decoder as each picture comes out, so it may be set after opening.
        if unaligned { decoder.pointer.pointee.flags |= Int32(AV_CODEC_FLAG_UNALIGNED) }
        let packet = try Packet()
        let frame = try Frame()
        // Packets since the last keyframe, and those of the GOP before it.
        var gop: [Packet] = [], previous: [Packet] = []
        var keyTicks: Int64?
        var pending: [Int64: Int] = [:]
        var seen = 0, delivered = 0, position = 0
        var active = false

        func receive() throws {
            while case .ok? = try? decoder.receive(frame) {
                defer { av_frame_unref(frame.pointer) }
                let f = frame.pointer.pointee
                let ticks = f.best_effort_timestamp != sp_av_nopts_value() ? f.best_effort_timestamp : f.pts
                if let at = pending.removeValue(forKey: ticks) {
                    try deliver(at, frame.pointer)
                    delivered += 1
                }
            }
        }
        func drain() throws {
            _ = decoder.send(nil)
            try receive()
            LibAVCodec.flushBuffers(decoder.pointer)
            active = false
        }
        while seen < wanted.count || !pending.isEmpty {
            guard try input.read(into: packet) else { break }
            guard Int(packet.pointer.pointee.stream_index) == stream else { continue }
            let p = packet.pointer.pointee
            let ticks = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            if p.flags & AV_PKT_FLAG_KEY != 0 {
                if active && pending.isEmpty { try drain() }
                (previous, gop, keyTicks) = (gop, [], ticks)
            }
            let copy = try Packet()
            guard LibAVCodec.packetRef(copy.pointer, packet.pointer) >= 0 else {
                throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "keeping a packet"))
            }
            gop.append(copy)
            if wanted.contains(position) {
                seen += 1
                pending[ticks] = position
                if !active {
                    // Decoding starts at the keyframe; a leading picture needs the GOP before.
                    let leading = keyTicks.map { ticks < $0 } ?? false
                    for earlier in (leading ? previous : []) + gop.dropLast() {
                        _ = decoder.send(earlier)
                        try receive()
                    }
                    active = true
                }
            }
            if active {
                _ = decoder.send(copy)
                try receive()
            }
            position += 1
        }
        if active { try drain() }
        return pending.values.sorted() + (delivered + pending.count < wanted.count ? Self.unseen(wanted, upTo: position) : [])
    }

    /// Wanted positions at or past `end`, which the file does not have.
    private static func unseen(_ wanted: Set<Int>, upTo end: Int) -> [Int] { wanted.filter { $0 >= end }.sorted() }
}
