/// An HEVC NAL unit (ITU-T H.265 7.3.1): its two header bytes and its RBSP, the payload with
/// emulation prevention removed. Reading a unit removes it and ``bytes`` adds it again, here
/// and nowhere else in the HEVC rewriting (``RBSP``).
struct HEVCNALUnit: Equatable {
    /// `forbidden_zero_bit`, `nal_unit_type`, `nuh_layer_id` and `nuh_temporal_id_plus1`, as stored.
    let header: [UInt8]
    var rbsp: [UInt8]

    /// `nal_unit_type`.
    var type: UInt8 { HEVCNALType.of(header[0]) }

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

/// HEVC's `nal_unit_type` values (ITU-T H.265 table 7-1) that slowpoke names.
enum HEVCNALType {
    /// Broken link access: an IRAP picture after which leading pictures are not expected.
    static let blaWithLeadingPictures: UInt8 = 16
    static let idrWithDecodableLeadingPictures: UInt8 = 19
    static let idrWithoutLeadingPictures: UInt8 = 20
    /// Clean random access: an open GOP's start.
    static let cra: UInt8 = 21
    /// The last of the IRAP range 16...23 (reserved).
    static let lastIRAP: UInt8 = 23
    /// The last VCL type (coded slice segments and reserved).
    static let lastVCL: UInt8 = 31
    static let videoParameterSet: UInt8 = 32
    static let sequenceParameterSet: UInt8 = 33
    static let pictureParameterSet: UInt8 = 34
    static let accessUnitDelimiter: UInt8 = 35
    static let prefixSEI: UInt8 = 39
    static let suffixSEI: UInt8 = 40

    /// The type of a NAL unit whose first byte is `byte`.
    static func of(_ byte: UInt8) -> UInt8 { (byte >> 1) & 0x3F }

    /// The first header byte of `byte`'s unit with its type changed to `type`.
    static func byte(_ byte: UInt8, as type: UInt8) -> UInt8 { (byte & 0x81) | (type << 1) }

    /// IRAP pictures (BLA, IDR, CRA, reserved IRAP): `no_output_of_prior_pics_flag` in their
    /// slice headers.
    static func isIRAP(_ type: UInt8) -> Bool { (blaWithLeadingPictures...lastIRAP).contains(type) }

    /// IDR pictures, whose slice headers have no picture order count or reference sets.
    static func isIDR(_ type: UInt8) -> Bool { type == idrWithDecodableLeadingPictures || type == idrWithoutLeadingPictures }

    /// Coded slice segments: types 0...9 and 16...21 (the others up to 31 are reserved).
    static func isSlice(_ type: UInt8) -> Bool { type <= 9 || (blaWithLeadingPictures...cra).contains(type) }

    /// BLA and IDR pictures, from which decoding starts with nothing before them.
    static func isRandomAccess(_ type: UInt8) -> Bool { (blaWithLeadingPictures...idrWithoutLeadingPictures).contains(type) }
}
