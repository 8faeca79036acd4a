@testable import Bitstream
import Testing

/// The parameter-set bookkeeping of frame-exact cuts on its own: reading and extending an
/// `avcC` record, and the SPS fields the re-encoded pictures must match.
@Suite struct ParameterSetsTests {
    /// The SPS and PPS x264 wrote for a 320x180 High-profile clip (`-g 25 -bf 2`, 4 reference
    /// frames); ffmpeg's trace_headers reads max_num_ref_frames 4, max_dec_frame_buffering 4.
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x0C, 0xAC, 0xD9, 0x41, 0x41, 0x9F, 0x9F, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00,
                               0x10, 0x00, 0x00, 0x03, 0x03, 0x20, 0xF1, 0x42, 0x99, 0x60]
    static let pps: [UInt8] = [0x68, 0xEF, 0x8F, 0xCB]
    static let trailer: [UInt8] = [0xFD, 0xF8, 0xF8, 0x00]

    static var record: [UInt8] {
        [1, 0x64, 0x00, 0x0C, 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, UInt8(pps.count)] + pps + trailer
    }

    @Test func aRecordReadsAndWritesBackUnchanged() throws {
        let sets = try #require(ParameterSets(avcC: Self.record))
        #expect(sets.avcC == Self.record)
        #expect(sets.lengthSize == 4)
        #expect(sets.usedIDs == [0])
        #expect(sets.freeID == 1)
    }

    @Test func addedSetsFollowTheStreamsOwn() throws {
        let sets = try #require(ParameterSets(avcC: Self.record))
        // An SPS and PPS numbered 1 (ue(v) 1 is the bits 010).
        let sps: [UInt8] = [0x67, 0x64, 0x00, 0x0C, 0x40], pps: [UInt8] = [0x68, 0x40]
        let both = sets.adding(sps: sps, pps: pps)
        let bytes = both.avcC
        #expect(bytes[5] == 0xE2)
        let again = try #require(ParameterSets(avcC: bytes))
        #expect(again.sequence == [Self.sps, sps])
        #expect(again.picture == [Self.pps, pps])
        #expect(again.usedIDs == [0, 1])
        #expect(again.freeID == 2)
        #expect(bytes.suffix(4).elementsEqual(Self.trailer))
    }

    @Test func annexBIsNotARecord() {
        #expect(ParameterSets(avcC: [0, 0, 0, 1] + Self.sps) == nil)
        #expect(ParameterSets(avcC: [1, 0x64, 0, 0x0C, 0xFF, 0xE1, 0, 40] + Self.sps) == nil)
    }

    @Test func theSequenceParameterSetGivesTheBufferSize() throws {
        let sps = try #require(SequenceParameterSet(Self.sps))
        #expect(sps.frameMBsOnly)
        #expect(sps.maxNumRefFrames == 4)
        #expect(sps.maxDecFrameBuffering == 4)
        #expect(SequenceParameterSet(Self.pps) == nil)
    }

    @Test func annexBSplitsAndLengthPrefixesJoin() {
        let stream: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps
        let units = stream.withUnsafeBufferPointer { AnnexBUnits.units($0) }
        #expect(units == [Self.sps, Self.pps])
        let sample = LengthPrefixedUnits.sample(units, lengthSize: 4)
        #expect(sample.count == 8 + Self.sps.count + Self.pps.count)
        #expect(Array(sample.prefix(4)) == [0, 0, 0, UInt8(Self.sps.count)])
    }
}
