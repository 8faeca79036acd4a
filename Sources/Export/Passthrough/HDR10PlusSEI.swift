import Foundation
internal import CFFmpeg

/// HDR10+ dynamic metadata (SMPTE ST 2094-40) as HEVC carries it: a prefix SEI message of type
/// `user_data_registered_itu_t_t35` (ITU-T H.265 D.2.6) whose payload starts with the country
/// code of the United States (0xB5), Samsung's provider code (0x003C), provider-oriented code 1
/// and application identifier 4. The payload is kept as the source wrote it, bytes unchanged,
/// and written into the re-encoded access unit that shows its picture: FFmpeg 5.1's libx265
/// wrapper does not pass `AV_FRAME_DATA_DYNAMIC_HDR_PLUS` on, and Debian's x265 is built
/// without HDR10+, so the SEI is put in the encoded packets here.
struct HDR10PlusSEI: Equatable {
    /// The SEI payload (ITU-T T.35 bytes, from the country code on).
    let payload: [UInt8]

    /// `user_data_registered_itu_t_t35`.
    static let payloadType: UInt8 = 4
    /// What an HDR10+ payload starts with: country code, provider code, provider-oriented code,
    /// application identifier.
    static let signature: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    /// The HDR10+ message among the NAL units of `sample` (length-prefixed with `lengthSize`
    /// bytes, or Annex B when nil), or nil when it has none.
    static func find(in sample: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> HDR10PlusSEI? {
        for unit in units(of: sample, lengthSize: lengthSize) {
            guard unit.count > 2, HEVCNALType.of(unit[0]) == HEVCNALType.prefixSEI else { continue }
            if let found = find(inSEI: RBSP.unescaped(unit.dropFirst(2))) { return found }
        }
        return nil
    }

    /// The HDR10+ message among the SEI messages of a prefix SEI unit's RBSP (ITU-T H.265 7.3.5).
    static func find(inSEI rbsp: [UInt8]) -> HDR10PlusSEI? {
        var i = 0
        func value() -> Int? {
            var v = 0
            while i < rbsp.count {
                let byte = rbsp[i]
                i += 1
                v += Int(byte)
                if byte != 0xFF { return v }
            }
            return nil
        }
        // Messages run to the trailing bits (0x80) of the last byte.
        while i + 1 < rbsp.count {
            guard let type = value(), let size = value(), i + size <= rbsp.count else { return nil }
            let payload = Array(rbsp[i ..< i + size])
            if type == Int(payloadType) && payload.starts(with: signature) { return HDR10PlusSEI(payload: payload) }
            i += size
        }
        return nil
    }

    /// A prefix SEI NAL unit (layer 0, temporal id 0) holding this message alone.
    var unit: [UInt8] {
        var rbsp: [UInt8] = [Self.payloadType]
        var size = payload.count
        while size >= 0xFF {
            rbsp.append(0xFF)
            size -= 0xFF
        }
        rbsp.append(UInt8(size))
        rbsp += payload
        rbsp.append(0x80)
        return HEVCNALUnit(header: [HEVCNALType.prefixSEI << 1, 1], rbsp: rbsp).bytes
    }

    /// `units` (one access unit) with this message's unit before the first coded slice, where
    /// ITU-T H.265 7.4.2.4.4 puts prefix SEI; any HDR10+ message already there is replaced.
    func inserted(into units: [[UInt8]]) -> [[UInt8]] {
        var out = units.filter { unit in
            guard unit.count > 2, HEVCNALType.of(unit[0]) == HEVCNALType.prefixSEI else { return true }
            return Self.find(inSEI: RBSP.unescaped(unit.dropFirst(2))) == nil
        }
        let at = out.firstIndex { $0.first.map { HEVCNALType.isSlice(HEVCNALType.of($0)) } ?? false } ?? out.count
        out.insert(unit, at: at)
        return out
    }

    /// An Annex B access unit with this message put in (``inserted(into:)``), in 4-byte start codes.
    func inserted(intoAnnexB bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        inserted(into: ParameterSets.annexBUnits(bytes)).reduce(into: []) { out, unit in
            out += [0, 0, 0, 1]
            out += unit
        }
    }

    /// The NAL units of a sample: Annex B when `lengthSize` is nil.
    private static func units(of sample: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> [[UInt8]] {
        guard let lengthSize else { return ParameterSets.annexBUnits(sample) }
        return ParameterSets.units(of: sample, lengthSize: lengthSize).map(Array.init)
    }

    /// The prefix length of `stream`'s samples: its `hvcC` record's, or nil for Annex B
    /// (a transport stream, or a record in Annex B form).
    static func lengthSize(of stream: StreamView) -> Int? {
        let p = stream.parameters.pointee
        guard let data = p.extradata, p.extradata_size > 22, data[0] == 1 else { return nil }
        return Int(data[21] & 3) + 1
    }

    /// The message in `packet` of a stream whose samples have `lengthSize` prefixes.
    static func find(in packet: UnsafePointer<AVPacket>, lengthSize: Int?) -> HDR10PlusSEI? {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return nil }
        return find(in: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)), lengthSize: lengthSize)
    }

    /// Whether the first packet of stream `index` of the movie at `path` carries HDR10+ (as an
    /// HDR10+ stream's pictures each do); false when it cannot be read.
    static func inFirstPacket(of path: String, stream index: Int) -> Bool {
        guard let input = try? InputFormatContext(path: path), let packet = try? Packet() else { return false }
        input.readOnly(stream: index)
        let lengthSize = lengthSize(of: input.stream(index))
        while (try? input.read(into: packet)) == true {
            defer { av_packet_unref(packet.pointer) }
            guard Int(packet.pointer.pointee.stream_index) == index else { continue }
            return find(in: packet.pointer, lengthSize: lengthSize) != nil
        }
        return false
    }

    /// Puts this message into `packet`, an encoder's Annex B access unit, replacing its data.
    func insert(into packet: UnsafeMutablePointer<AVPacket>) throws {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        let bytes = inserted(intoAnnexB: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
        guard let fresh = av_packet_alloc() else {
            throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "adding HDR10+ metadata to a packet"))
        }
        var owned: UnsafeMutablePointer<AVPacket>? = fresh
        defer { av_packet_free(&owned) }
        let made = av_new_packet(fresh, Int32(bytes.count))
        guard made >= 0 else { throw ExportError.libav(AVFailure(code: made, operation: "adding HDR10+ metadata to a packet")) }
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
        av_packet_unref(packet)
        av_packet_move_ref(packet, fresh)
    }
}
