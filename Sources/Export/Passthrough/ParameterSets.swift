import Foundation

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
struct ParameterSets: Equatable {
    /// The record's bytes before its first SPS (version, profile, compatibility, level, NAL
    /// length size) and after its last PPS (High profiles' chroma format and bit depths).
    private let header: [UInt8]
    private let trailer: [UInt8]
    private(set) var sequence: [[UInt8]]
    private(set) var picture: [[UInt8]]

    /// Bytes in each NAL unit's length prefix.
    var lengthSize: Int { Int(header[4] & 3) + 1 }

    /// Reads an `avcC` record; nil when `record` is not one (Annex B extradata, say).
    init?(avcC record: [UInt8]) {
        guard record.count >= 7, record[0] == 1 else { return nil }
        var at = 6
        guard let sps = Self.units(count: Int(record[5] & 0x1F), of: record, at: &at), at < record.count else { return nil }
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

    /// The record's bytes.
    var avcC: [UInt8] {
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

    /// The ids the stream's SPS and PPS use (`seq_parameter_set_id`, `pic_parameter_set_id`).
    var usedIDs: Set<Int> {
        Set(sequence.compactMap { Self.firstExpGolomb(in: $0, after: 4) } + picture.compactMap { Self.firstExpGolomb(in: $0, after: 1) })
    }

    /// The stream's first SPS, parsed.
    var firstSequence: SequenceParameterSet? { sequence.first.flatMap(SequenceParameterSet.init) }

    /// An id for new parameter sets that no SPS or PPS of the stream uses (x264 takes 0-31).
    var freeID: Int? { (1...31).first { !usedIDs.contains($0) } }

    /// The record with `sps` and `pps` added after the stream's own.
    func adding(sps: [UInt8], pps: [UInt8]) -> ParameterSets {
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

    /// The NAL units of an Annex B byte stream (start codes of 3 or 4 bytes), without them.
    static func annexBUnits(_ bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        var starts: [(code: Int, payload: Int)] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                starts.append((i > 0 && bytes[i - 1] == 0 ? i - 1 : i, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        return starts.indices.map { k in
            let end = k + 1 < starts.count ? starts[k + 1].code : bytes.count
            return Array(bytes[starts[k].payload ..< max(starts[k].payload, end)])
        }
    }

    /// The NAL units of a sample whose units have `lengthSize`-byte length prefixes, up to the
    /// first that does not fit.
    static func units(of sample: UnsafeBufferPointer<UInt8>, lengthSize: Int) -> [UnsafeBufferPointer<UInt8>] {
        var units: [UnsafeBufferPointer<UInt8>] = []
        var i = 0
        while i + lengthSize <= sample.count {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(sample[i + k]) }
            i += lengthSize
            guard length > 0, i + length <= sample.count else { break }
            units.append(UnsafeBufferPointer(rebasing: sample[i ..< i + length]))
            i += length
        }
        return units
    }

    /// NAL units as a length-prefixed sample, `lengthSize` bytes a prefix.
    static func sample(_ units: [[UInt8]], lengthSize: Int) -> [UInt8] {
        var out: [UInt8] = []
        for unit in units {
            for k in (0..<lengthSize).reversed() { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
            out += unit
        }
        return out
    }
}
