/// Two H.264 IDR access units in a row must differ in idr_pic_id (H.264 7.4.3), or a decoder
/// takes the second for more slices of the first: OpenH264 then shows one picture for both.
/// Every re-encoded span starts with an IDR picture whose id a fresh libx264 sets to 0, a
/// freeze's or a gap's still is that IDR picture alone, and an all-intra source's copied frames
/// are IDR pictures with ids 0 and 1 in turn (x264's), so a re-encoded span's IDR picture takes
/// an id x264 never writes (4 or 5, ``OpenGOPRewriter``'s recovery points take 2 or 3), other
/// than the IDR picture written just before it.
public struct IDRSeparation {
    private let reader: OpenGOPResume

    /// For an output whose parameter sets (the stream's and the re-encoded spans') are the avcC
    /// `record`; nil when its slice headers cannot be read and written (HEVC has no such id).
    public init?(record: [UInt8]) {
        guard let reader = try? OpenGOPResume(avcC: record) else { return nil }
        self.reader = reader
    }

    /// The idr_pic_id of `sample`'s picture, or nil when it is not an IDR picture.
    public func id(_ sample: UnsafeBufferPointer<UInt8>) -> Int? {
        if case .idr(let id)? = try? reader.picture(sample) { id } else { nil }
    }

    /// Re-encoded IDR `sample` with its id set apart from `previous` (the id of the IDR picture
    /// written just before it; nil when the picture before is not one), and that id.
    public func separated(_ sample: [UInt8], previous: Int?) throws -> (bytes: [UInt8], id: Int) {
        let id = previous == 4 ? 5 : 4
        let units = try sample.withUnsafeBufferPointer { bytes in
            try reader.units(bytes).map { unit -> [UInt8] in
                guard H264NALType.of(unit[0]) == .idr else { return Array(unit) }
                let slice = try reader.sliceHeader(unit)
                let change = SliceHeader.Rewrite(nalType: .idr, frameNum: slice.frameNum, idrPicID: id, pocLsb: slice.pocLsb, marking: slice.marking)
                return try slice.rewritten(change, unit: unit, table: reader.table)
            }
        }
        return (LengthPrefixedUnits.sample(units, lengthSize: reader.lengthSize), id)
    }
}
