/// HEVC's `nal_unit_type` (ITU-T H.265 table 7-1): six bits of a NAL unit's first header byte
/// (after `forbidden_zero_bit`). Reserved values have no case, except the reserved IRAP types 22
/// and 23, which an IRAP check must still count; ``of(_:)`` gives nil for the others.
public enum HEVCNALType: UInt8, Sendable {
    case trailingNonReference = 0, trailingReference
    case temporalSublayerAccessNonReference, temporalSublayerAccessReference
    case stepwiseTemporalSublayerAccessNonReference, stepwiseTemporalSublayerAccessReference
    case randomAccessDecodableLeadingNonReference, randomAccessDecodableLeadingReference
    case randomAccessSkippedLeadingNonReference, randomAccessSkippedLeadingReference
    /// Broken link access: an IRAP picture after which leading pictures are not expected.
    case blaWithLeadingPictures = 16
    case blaWithDecodableLeadingPictures = 17
    case blaWithoutLeadingPictures = 18
    case idrWithDecodableLeadingPictures = 19
    case idrWithoutLeadingPictures = 20
    /// Clean random access: an open GOP's start.
    case cra = 21
    case reservedIRAP22 = 22
    case reservedIRAP23 = 23
    case videoParameterSet = 32
    case sequenceParameterSet = 33
    case pictureParameterSet = 34
    case accessUnitDelimiter = 35
    case endOfSequence = 36
    case endOfBitstream = 37
    case fillerData = 38
    case prefixSEI = 39
    case suffixSEI = 40

    /// The type of a NAL unit whose first header byte is `byte`; nil for a reserved or
    /// unspecified one.
    public static func of(_ byte: UInt8) -> HEVCNALType? { HEVCNALType(rawValue: value(byte)) }

    /// The six type bits of a first header byte, whatever they name.
    static func value(_ byte: UInt8) -> UInt8 { (byte >> 1) & 0b11_1111 }

    /// The first header byte `byte` with its type changed to this one (the layer id's high bit kept).
    func replacingType(in byte: UInt8) -> UInt8 { (byte & 0b1000_0001) | (rawValue << 1) }

    /// The two header bytes of a unit of this type in layer 0, temporal sub-layer 0.
    var header: [UInt8] { [rawValue << 1, 1] }

    /// IRAP pictures (BLA, IDR, CRA, reserved IRAP): `no_output_of_prior_pics_flag` in their
    /// slice headers.
    var isIRAP: Bool { (16...23).contains(rawValue) }

    /// IDR pictures, whose slice headers have no picture order count or reference sets.
    var isIDR: Bool { self == .idrWithDecodableLeadingPictures || self == .idrWithoutLeadingPictures }

    /// Coded slice segments: types 0...9 and 16...21 (the others up to 31 are reserved).
    var isSlice: Bool { rawValue <= 9 || (16...21).contains(rawValue) }

    /// BLA and IDR pictures, from which decoding starts with nothing before them.
    public var isRandomAccess: Bool { (16...20).contains(rawValue) }

    /// The video, sequence and picture parameter sets.
    var isParameterSet: Bool { (32...34).contains(rawValue) }
}
