/// An H.264 stream's parameter sets as an `avcC` configuration record (ISO/IEC 14496-15
/// 5.3.3.1): what mp4's sample entry and Matroska's CodecPrivate hold. A smart cut's re-encoded
/// pictures carry a sequence and picture parameter set of their own, under ids the stream does
/// not use (x264's `sps-id`, which numbers its PPS alike); the output's record lists both, so
/// one `avc1` sample entry serves copied and re-encoded pictures. libavformat's mov and
/// Matroska muxers write a record they are given as it is.
///
/// Measured (testsrc2 320x240 x264 streams, 8-bit High): with both sets in the record and the
/// re-encoded pictures naming id 1, FFmpeg 5.1's h264 decoder and OpenH264 decode every spliced
/// stream without an error, in mp4 and mkv.
public struct ParameterSets: Equatable, Sendable {
    /// The record's bytes before its first SPS (version, profile, compatibility, level, NAL
    /// length size) and after its last PPS (High profiles' chroma format and bit depths).
    private let header: [UInt8]
    private let trailer: [UInt8]
    private(set) var sequence: [[UInt8]]
    private(set) var picture: [[UInt8]]

    /// Bytes in each NAL unit's length prefix.
    public var lengthSize: Int { Int(header[4] & 3) + 1 }

    /// The prefix size an `avcC` record gives its samples (`lengthSizeMinusOne` + 1), read
    /// from its fixed header alone; nil when `record` is not one (Annex B extradata).
    public static func lengthSize(avcC record: UnsafeBufferPointer<UInt8>) -> Int? {
        guard record.count > 4, record[0] == 1 else { return nil }
        return Int(record[4] & 3) + 1
    }

    /// Reads an `avcC` record; nil when `record` is not one (Annex B extradata, say).
    public init?(avcC record: [UInt8]) {
        guard record.count >= 7, record[0] == 1 else { return nil }
        var at = 6
        // numOfSequenceParameterSets: five bits under three reserved ones.
        guard let sps = Self.units(count: Int(record[5] & 0b1_1111), of: record, at: &at), at < record.count else { return nil }
        let ppsCount = Int(record[at])
        at += 1
        guard let pps = Self.units(count: ppsCount, of: record, at: &at) else { return nil }
        header = Array(record[0..<5])
        trailer = Array(record[at...])
        sequence = sps
        picture = pps
    }

    /// `count` NAL units of a configuration record (avcC, hvcC), each after a 16-bit length,
    /// from `at`, which moves past them; nil when the record ends first.
    static func units(count: Int, of record: [UInt8], at: inout Int) -> [[UInt8]]? {
        var list: [[UInt8]] = []
        for _ in 0..<count {
            guard at + 2 <= record.count else { return nil }
            let length = Int(record[at]) << 8 | Int(record[at + 1])
            guard at + 2 + length <= record.count else { return nil }
            list.append(Array(record[at + 2 ..< at + 2 + length]))
            at += 2 + length
        }
        return list
    }

    /// The first SPS NAL unit of a codec's extradata: an `avcC` record, or Annex B (an encoder's
    /// global header); nil when it has none.
    public static func firstSequenceUnit(extradata: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        if lengthSize(avcC: extradata) != nil { return ParameterSets(avcC: Array(extradata))?.sequence.first }
        return AnnexBUnits(extradata).first { $0.first.flatMap(H264NALType.of) == .sequenceParameterSet }.map(Array.init)
    }

    /// The record's bytes.
    public var avcC: [UInt8] {
        var out = header
        out.append(0xE0 | UInt8(sequence.count))
        for unit in sequence { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        out.append(UInt8(picture.count))
        for unit in picture { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        return out + trailer
    }

    /// The record with `gaps_in_frame_num_value_allowed_flag` set in the SPS with `ids` (the
    /// stream's own, see ``OpenGOPRewriter``); the others are kept as they are.
    func allowingFrameNumGaps(ids: Set<Int>) -> ParameterSets {
        var copy = self
        copy.sequence = sequence.map { unit in
            guard let sps = SequenceParameterSet(unit), ids.contains(sps.id) else { return unit }
            return SequenceParameterSet.allowingFrameNumGaps(unit) ?? unit
        }
        return copy
    }

    /// The record with every SPS NAL unit replaced by `transform`'s (``CroppingWindow``).
    func replacingSequences(_ transform: ([UInt8]) throws -> [UInt8]) rethrows -> ParameterSets {
        var copy = self
        copy.sequence = try sequence.map(transform)
        return copy
    }

    /// The ids the stream's SPS and PPS use (`seq_parameter_set_id`, `pic_parameter_set_id`).
    var usedIDs: Set<Int> {
        Set(sequence.compactMap { Self.firstExpGolomb(in: $0, after: 4) } + picture.compactMap { Self.firstExpGolomb(in: $0, after: 1) })
    }

    /// The stream's first SPS, parsed.
    public var firstSequence: SequenceParameterSet? { sequence.first.flatMap(SequenceParameterSet.init) }

    /// An id for new parameter sets that no SPS or PPS of the stream uses (x264 takes 0-31).
    public var freeID: Int? { (1...31).first { !usedIDs.contains($0) } }

    /// The record with `sps` and `pps` added after the stream's own.
    public func adding(sps: [UInt8], pps: [UInt8]) -> ParameterSets {
        var copy = self
        copy.sequence.append(sps)
        copy.picture.append(pps)
        return copy
    }

    /// The first unsigned Exp-Golomb value of a NAL unit from byte `offset` (the SPS id after
    /// its header, profile, flags and level; the PPS id after its header). Those first bytes
    /// hold no emulation-prevention byte.
    static func firstExpGolomb(in unit: [UInt8], after offset: Int) -> Int? {
        guard unit.count > offset else { return nil }
        var reader = ExpGolombReader(Array(unit[offset...]))
        return try? reader.ue()
    }
}
