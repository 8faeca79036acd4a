/// An HEVC stream's parameter sets as an `hvcC` configuration record (ISO/IEC 14496-15 8.3.3.1):
/// what mp4's sample entry and Matroska's CodecPrivate hold. A smart cut's re-encoded pictures
/// carry their VPS, SPS and PPS in the stream (in-band, the first picture of each span), under
/// ids the stream's sets do not use (``HEVCIDRewriter``), and the stream's own sets are put
/// in-band again where copying resumes. The record keeps the stream's sets, with
/// `array_completeness` cleared (sets may also come in-band), which mp4 allows only under an
/// `hev1` sample entry and Matroska always.
///
/// Since the re-encoded sets no longer replace the stream's, a decoder still holds the stream's
/// where copying resumes; they are sent again there all the same (a few dozen bytes a cut), so
/// that every IRAP picture copying resumes at carries the sets it activates, as a picture a
/// decoder may start from (a seek, a stream joined there) should.
public struct HEVCParameterSets: Equatable, Sendable {
    /// The 22 bytes before the arrays (profile, level, chroma format, bit depths, NAL length
    /// size).
    private let header: [UInt8]
    /// The record's arrays: NAL type and units (no start codes), in the record's order.
    private var arrays: [(type: UInt8, units: [[UInt8]])]

    public static func == (a: Self, b: Self) -> Bool {
        a.header == b.header && a.arrays.map(\.type) == b.arrays.map(\.type) && a.arrays.map(\.units) == b.arrays.map(\.units)
    }

    /// Bytes in each NAL unit's length prefix.
    public var lengthSize: Int { Int(header[21] & 3) + 1 }

    /// The prefix size an `hvcC` record gives its samples (`lengthSizeMinusOne` + 1), read
    /// from its fixed header alone; nil when `record` is not one (Annex B extradata).
    public static func lengthSize(hvcC record: UnsafeBufferPointer<UInt8>) -> Int? {
        guard record.count > 22, record[0] == 1 else { return nil }
        return Int(record[21] & 3) + 1
    }

    /// Reads an `hvcC` record; nil when `record` is not one (Annex B extradata, say).
    public init?(hvcC record: [UInt8]) {
        guard record.count >= 23, record[0] == 1 else { return nil }
        var at = 23
        var arrays: [(type: UInt8, units: [[UInt8]])] = []
        for _ in 0..<Int(record[22]) {
            guard at + 3 <= record.count else { return nil }
            // NAL_unit_type, under array_completeness and a reserved bit.
            let type = record[at] & 0b11_1111
            let count = Int(record[at + 1]) << 8 | Int(record[at + 2])
            at += 3
            guard let units = ParameterSets.units(count: count, of: record, at: &at) else { return nil }
            arrays.append((type, units))
        }
        header = Array(record[0..<22])
        self.arrays = arrays
    }

    /// The record's bytes, every array marked incomplete (more sets may come in-band).
    public var hvcC: [UInt8] {
        var out = header
        out.append(UInt8(arrays.count))
        for array in arrays {
            out += [array.type, UInt8(array.units.count >> 8), UInt8(array.units.count & 0xFF)]
            for unit in array.units { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        }
        return out
    }

    /// The record with every SPS NAL unit replaced by `transform`'s (``CroppingWindow``).
    func replacingSequences(_ transform: ([UInt8]) throws -> [UInt8]) rethrows -> HEVCParameterSets {
        var copy = self
        for i in copy.arrays.indices where copy.arrays[i].type == HEVCNALType.sequenceParameterSet.rawValue {
            copy.arrays[i].units = try copy.arrays[i].units.map(transform)
        }
        return copy
    }

    /// The video, sequence and picture parameter sets, in decoding order.
    public var parameterSetUnits: [[UInt8]] {
        [HEVCNALType.videoParameterSet, .sequenceParameterSet, .pictureParameterSet].flatMap { type in
            arrays.filter { $0.type == type.rawValue }.flatMap(\.units)
        }
    }

    /// The coding tree block and smallest coding block sizes in pixels of the stream's first
    /// SPS, which a smart cut's re-encoded pictures keep (``HEVCSpliceEncoder``).
    public func codingBlockSizes() throws -> (tree: Int, smallest: Int) {
        guard let unit = parameterSetUnits.first(where: { $0.first.flatMap(HEVCNALType.of) == .sequenceParameterSet }),
              let nal = HEVCNALUnit(unit) else {
            throw SyntaxError(element: "sequence parameter set", problem: .unsupported("is missing from the hvcC record"))
        }
        let sps = try HEVCSequenceParameterSet(nal)
        return (1 << sps.ctbLog2Size, 1 << sps.minCodingBlockLog2Size)
    }

    /// A copied sample where copying resumes after re-encoded frames or a cut: the stream's own
    /// parameter sets first, and a CRA picture's
    /// slices renamed BLA_W_LP (NAL type 21 to 16; the slice header syntax is the same), so
    /// the picture starts a new coded video sequence: its leading RASL pictures, which refer to
    /// pictures before it and are shown before it (so never copied after a cut), are not
    /// expected, and picture order counts start afresh. An end-of-sequence NAL unit before a CRA
    /// would say the same, but FFmpeg 5.1 then discards the pictures not yet output (it infers
    /// `no_output_of_prior_pics_flag` for a CRA after an end of sequence), losing the last
    /// re-encoded frames; for a BLA it reads the flag (0) and outputs them.
    public func resumed(_ sample: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = LengthPrefixedUnits.sample(parameterSetUnits, lengthSize: lengthSize)
        let prefix = out.count
        out += sample
        guard let base = sample.baseAddress else { return out }
        for unit in LengthPrefixedUnits(sample, lengthSize: lengthSize, keepingCutShort: true) where HEVCNALType.of(unit[0]) == .cra {
            let at = prefix + (unit.baseAddress! - base)
            out[at] = HEVCNALType.blaWithLeadingPictures.replacingType(in: out[at])
        }
        return out
    }
}
