@testable import Bitstream
import Testing

/// The two NAL iterators and the SEI message iterator, on hand-made bytes.
@Suite struct NALUnitsTests {
    @Test func annexBSplitsAtThreeAndFourByteStartCodes() {
        let stream: [UInt8] = [9, 0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65]
        let units = stream.withUnsafeBufferPointer { AnnexBUnits.units($0) }
        #expect(units == [[0x67, 1, 2], [0x68, 3], [0x65]])
        #expect(AnnexBUnits.stream(units) == [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65])
    }

    @Test func lengthPrefixedStopsAtAUnitThatDoesNotFit() {
        let sample = LengthPrefixedUnits.sample([[0x65, 1], [0x41]], lengthSize: 4) + [0, 0, 0, 9, 0x41, 2]
        let whole = sample.withUnsafeBufferPointer { Array(LengthPrefixedUnits($0, lengthSize: 4)).map(Array.init) }
        #expect(whole == [[0x65, 1], [0x41]])
        let cut = sample.withUnsafeBufferPointer { Array(LengthPrefixedUnits($0, lengthSize: 4, keepingCutShort: true)).map(Array.init) }
        #expect(cut == [[0x65, 1], [0x41], [0x41, 2]])
        let zero: [UInt8] = [0, 0, 0, 0, 0x65]
        #expect(zero.withUnsafeBufferPointer { Array(LengthPrefixedUnits($0, lengthSize: 4, keepingCutShort: true)) }.isEmpty)
    }

    @Test func seiMessagesReadBackAsWritten() {
        let messages = [SEIMessages.Message(type: 6, payload: [0x84]), SEIMessages.Message(type: 300, payload: Array(repeating: 7, count: 260))]
        #expect(Array(SEIMessages(SEIMessages.rbsp(messages))) == messages)
        // A size past the end ends the messages.
        #expect(Array(SEIMessages([5, 9, 1, 0x80])).isEmpty)
    }

    @Test func nalTypesNameTheHeaderBits() {
        #expect(H264NALType.of(0x65) == .idr && H264NALType.of(0x41) == .slice && H264NALType.of(0x67) == .sequenceParameterSet)
        #expect(H264NALType.of(0x00) == nil && H264NALType.of(0x1F) == nil)
        #expect(HEVCNALType.of(0x40) == .videoParameterSet && HEVCNALType.of(0x2A) == .cra && HEVCNALType.of(0x26) == .idrWithDecodableLeadingPictures)
        #expect(HEVCNALType.of(0x14) == nil)
        #expect(HEVCNALType.blaWithLeadingPictures.replacingType(in: 0x2B) == 0x21)
        #expect(HEVCNALType.cra.isIRAP && !HEVCNALType.cra.isRandomAccess && HEVCNALType.idrWithoutLeadingPictures.isIDR)
    }
}
