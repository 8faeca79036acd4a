/// HDR10+ dynamic metadata (SMPTE ST 2094-40) as HEVC carries it: a prefix SEI message of type
/// `user_data_registered_itu_t_t35` (ITU-T H.265 D.2.6) whose payload starts with the country
/// code of the United States (0xB5), Samsung's provider code (0x003C), provider-oriented code 1
/// and application identifier 4. The payload is kept as the source wrote it, bytes unchanged,
/// and written into the re-encoded access unit that shows its picture: FFmpeg 5.1's libx265
/// wrapper does not pass `AV_FRAME_DATA_DYNAMIC_HDR_PLUS` on, and Debian's x265 is built
/// without HDR10+, so the SEI is put in the encoded packets here (Export's `HDR10PlusSEI+Packets`).
public struct HDR10PlusSEI: Equatable, Sendable {
    /// The SEI payload (ITU-T T.35 bytes, from the country code on).
    let payload: [UInt8]

    /// `user_data_registered_itu_t_t35`.
    static let payloadType: UInt8 = 4
    /// What an HDR10+ payload starts with: country code, provider code, provider-oriented code,
    /// application identifier.
    static let signature: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    /// The HDR10+ message among the NAL units of `sample` (length-prefixed with `lengthSize`
    /// bytes, or Annex B when nil), or nil when it has none.
    public static func find(in sample: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> HDR10PlusSEI? {
        for unit in units(of: sample, lengthSize: lengthSize) {
            guard unit.count > 2, HEVCNALType.of(unit[0]) == .prefixSEI else { continue }
            if let found = find(inSEI: RBSP.unescaped(unit.dropFirst(2))) { return found }
        }
        return nil
    }

    /// The HDR10+ message among the SEI messages of a prefix SEI unit's RBSP (ITU-T H.265 7.3.5).
    static func find(inSEI rbsp: [UInt8]) -> HDR10PlusSEI? {
        SEIMessages(rbsp).lazy.first { $0.type == Int(payloadType) && $0.payload.starts(with: signature) }.map { HDR10PlusSEI(payload: $0.payload) }
    }

    /// A prefix SEI NAL unit (layer 0, temporal id 0) holding this message alone.
    var unit: [UInt8] {
        HEVCNALUnit(header: HEVCNALType.prefixSEI.header, rbsp: SEIMessages.rbsp([SEIMessages.Message(type: Int(Self.payloadType), payload: payload)])).bytes
    }

    /// `units` (one access unit) with this message's unit before the first coded slice, where
    /// ITU-T H.265 7.4.2.4.4 puts prefix SEI; any HDR10+ message already there is replaced.
    public func inserted(into units: [[UInt8]]) -> [[UInt8]] {
        var out = units.filter { unit in
            guard unit.count > 2, HEVCNALType.of(unit[0]) == .prefixSEI else { return true }
            return Self.find(inSEI: RBSP.unescaped(unit.dropFirst(2))) == nil
        }
        let at = out.firstIndex { $0.first.flatMap(HEVCNALType.of)?.isSlice ?? false } ?? out.count
        out.insert(unit, at: at)
        return out
    }

    /// An Annex B access unit with this message put in (``inserted(into:)``), in 4-byte start codes.
    public func inserted(intoAnnexB bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        AnnexBUnits.stream(inserted(into: AnnexBUnits.units(bytes)))
    }

    /// The NAL units of a sample: Annex B when `lengthSize` is nil.
    private static func units(of sample: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> [[UInt8]] {
        guard let lengthSize else { return AnnexBUnits.units(sample) }
        return LengthPrefixedUnits(sample, lengthSize: lengthSize).map(Array.init)
    }
}
