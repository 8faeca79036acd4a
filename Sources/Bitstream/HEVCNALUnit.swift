/// An HEVC NAL unit (ITU-T H.265 7.3.1): its two header bytes and its RBSP, the payload with
/// emulation prevention removed. Reading a unit removes it and ``bytes`` adds it again, here
/// and nowhere else in the HEVC rewriting (``RBSP``).
struct HEVCNALUnit: Equatable {
    /// `forbidden_zero_bit`, `nal_unit_type`, `nuh_layer_id` and `nuh_temporal_id_plus1`, as stored.
    let header: [UInt8]
    var rbsp: [UInt8]

    /// `nal_unit_type`; nil for a reserved or unspecified one.
    var type: HEVCNALType? { HEVCNALType.of(header[0]) }
    /// `nal_unit_type` as a number, whatever it names.
    var typeValue: UInt8 { HEVCNALType.value(header[0]) }

    /// Reads a NAL unit (no start code, no length prefix); nil when it is shorter than its header.
    init?(_ unit: [UInt8]) {
        guard unit.count >= 2 else { return nil }
        header = Array(unit.prefix(2))
        rbsp = RBSP.unescaped(unit.dropFirst(2))
    }

    init(header: [UInt8], rbsp: [UInt8]) {
        self.header = header
        self.rbsp = rbsp
    }

    /// The unit as stored: header and escaped RBSP.
    var bytes: [UInt8] { header + RBSP.escaped(rbsp) }
}
