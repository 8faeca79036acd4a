package import Bitstream
package import CFFmpeg

/// The libav side of ``HDR10PlusSEI``: finding the message in a stream's packets, and putting it
/// into an encoder's packets.
extension HDR10PlusSEI {
    /// The prefix length of `stream`'s samples: its `hvcC` record's, or nil for Annex B
    /// (a transport stream, or a record in Annex B form).
    static func lengthSize(of stream: StreamView) -> Int? {
        let p = stream.parameters.pointee
        guard let data = p.extradata else { return nil }
        return HEVCParameterSets.lengthSize(hvcC: UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }

    /// The message in `packet` of a stream whose samples have `lengthSize` prefixes.
    static func find(in packet: UnsafePointer<AVPacket>, lengthSize: Int?) -> HDR10PlusSEI? {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return nil }
        return find(in: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)), lengthSize: lengthSize)
    }

    /// Whether the first packet of stream `index` of the movie at `path` carries HDR10+ (as an
    /// HDR10+ stream's pictures each do); false when it cannot be read.
    package static func inFirstPacket(of path: String, stream index: Int) -> Bool {
        guard let input = try? InputFormatContext(path: path), let packet = try? Packet() else { return false }
        input.readOnly(stream: index)
        let lengthSize = lengthSize(of: input.stream(index))
        while (try? input.read(into: packet)) == true {
            defer { LibAVCodec.packetUnref(packet.pointer) }
            guard Int(packet.pointer.pointee.stream_index) == index else { continue }
            return find(in: packet.pointer, lengthSize: lengthSize) != nil
        }
        return false
    }

    /// Puts this message into `packet`, an encoder's Annex B access unit, replacing its data.
    package func insert(into packet: UnsafeMutablePointer<AVPacket>) throws {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        let bytes = inserted(intoAnnexB: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
        guard let fresh = LibAVCodec.packetAlloc() else {
            throw MediaError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "adding HDR10+ metadata to a packet"))
        }
        var owned: UnsafeMutablePointer<AVPacket>? = fresh
        defer { LibAVCodec.packetFree(&owned) }
        let made = LibAVCodec.newPacket(fresh, Int32(bytes.count))
        guard made >= 0 else { throw MediaError.libav(AVFailure(code: made, operation: "adding HDR10+ metadata to a packet")) }
        bytes.withUnsafeBufferPointer { fresh.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        // The properties a muxer reads (the encoder's statistics side data is left behind).
        let old = packet.pointee
        fresh.pointee.pts = old.pts
        fresh.pointee.dts = old.dts
        fresh.pointee.duration = old.duration
        fresh.pointee.flags = old.flags
        fresh.pointee.stream_index = old.stream_index
        fresh.pointee.pos = old.pos
        fresh.pointee.time_base = old.time_base
        LibAVCodec.packetUnref(packet)
        LibAVCodec.packetMoveRef(packet, fresh)
    }
}
