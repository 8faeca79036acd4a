/// H.264's `nal_unit_type` (ITU-T H.264 table 7-1), the low five bits of a NAL unit's header
/// byte. Unspecified and reserved values (0, 17, 18, 22...31) have no case: ``of(_:)`` gives
/// nil for them.
public enum H264NALType: UInt8, Sendable {
    /// A coded slice of a non-IDR picture.
    case slice = 1
    case sliceDataPartitionA = 2
    case sliceDataPartitionB = 3
    case sliceDataPartitionC = 4
    /// A coded slice of an IDR picture, from which decoding starts with nothing before it.
    case idr = 5
    case sei = 6
    case sequenceParameterSet = 7
    case pictureParameterSet = 8
    case accessUnitDelimiter = 9
    case endOfSequence = 10
    case endOfStream = 11
    case fillerData = 12
    case sequenceParameterSetExtension = 13
    case prefix = 14
    case subsetSequenceParameterSet = 15
    case depthParameterSet = 16
    case auxiliarySlice = 19
    case sliceExtension = 20
    case depthSliceExtension = 21

    /// The type of a NAL unit whose header byte is `header`; nil for an unspecified or reserved one.
    public static func of(_ header: UInt8) -> H264NALType? { H264NALType(rawValue: header & 0b1_1111) }

    /// `nal_ref_idc` of a header byte: 0 for a picture no other refers to.
    static func referenceIDC(_ header: UInt8) -> Int { Int(header >> 5) & 3 }

    /// The header byte of a unit of this type with `nal_ref_idc` `referenceIDC`.
    func header(referenceIDC: Int) -> UInt8 { UInt8(referenceIDC << 5) | rawValue }

    /// A coded slice of a primary picture (IDR or not), the kinds ``SliceHeader`` reads.
    var isPictureSlice: Bool { self == .slice || self == .idr }
}
