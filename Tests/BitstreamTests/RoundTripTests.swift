@testable import Bitstream
import Foundation
import TestSupport
import Testing

/// Read then write gives the same bytes, on streams x264 and x265 make at test time: NAL units
/// split and joined (Annex B and length-prefixed), emulation prevention removed and added, SEI
/// messages, avcC and hvcC records, H.264 SPS and PPS and HEVC SPS, PPS and slice segment headers
/// (every element read written again from its value), HEVC VPS, SPS, PPS and slice segment
/// headers written with the ids they have, and H.264 slice headers with the fields they have. Each shape
/// must give a minimum number of structures checked, so a reader that silently skips them fails.
@Suite struct RoundTripTests {
    @Test(arguments: EncodedStream.h264Shapes.map(\.name)) func h264(shape name: String) throws {
        let folder = try TemporaryFolder("bitstream-h264")
        let stream = try EncodedStream(.h264, try #require(EncodedStream.h264Shapes.first { $0.name == name }), in: folder)
        try Self.checkUnits(stream)
        let sets = try #require(ParameterSets(avcC: stream.record))
        #expect(sets.avcC == stream.record)
        // x264 repeats its sets before every IDR picture.
        #expect(sets.sequence == Self.distinct(stream.units.filter { H264NALType.of($0[0]) == .sequenceParameterSet }))
        #expect(sets.picture == Self.distinct(stream.units.filter { H264NALType.of($0[0]) == .pictureParameterSet }))
        let table = ParameterTable(sets)
        #expect(table.sequences.count == 1 && table.pictures.count == 1)
        // Every element of the SPS and PPS written from its value gives the unit again.
        for unit in sets.sequence {
            let elements = try #require(SequenceParameterSet.elements(of: unit))
            #expect(elements.count >= 20 && Self.written(elements, of: unit, header: 1) == unit, "\(stream.name) SPS")
        }
        for unit in sets.picture {
            let elements = try #require(PictureParameterSet.elements(of: unit))
            #expect(elements.count >= 13 && Self.written(elements, of: unit, header: 1) == unit, "\(stream.name) PPS")
        }
        var slices = 0
        for unit in stream.units where H264NALType.of(unit[0])?.isPictureSlice ?? false {
            let slice = try SliceHeader(header: unit[0], rbsp: RBSP.unescaped(unit.dropFirst()), table: table)
            let same = SliceHeader.Rewrite(nalType: slice.nalType, frameNum: slice.frameNum, idrPicID: slice.idrPicID,
                                           pocLsb: slice.pocLsb, marking: slice.marking)
            #expect(try unit.withUnsafeBufferPointer { try slice.rewritten(same, unit: $0, table: table) } == unit, "\(stream.name) slice \(slices)")
            #expect(try slice.rewritten(same, rbsp: RBSP.unescaped(unit.dropFirst()), table: table) == unit, "\(stream.name) slice \(slices)")
            slices += 1
        }
        #expect(slices >= (name == "slices-cavlc" ? 100 : 25))
    }

    @Test(arguments: EncodedStream.hevcShapes.map(\.name)) func hevc(shape name: String) throws {
        let folder = try TemporaryFolder("bitstream-hevc")
        let stream = try EncodedStream(.hevc, try #require(EncodedStream.hevcShapes.first { $0.name == name }), in: folder)
        try Self.checkUnits(stream)
        let sets = try #require(HEVCParameterSets(hvcC: stream.record))
        // Written back with every array marked incomplete (array_completeness, the top bit).
        var record = stream.record
        var at = 23
        for _ in 0..<Int(record[22]) {
            record[at] &= 0x7F
            at += 3
            for _ in 0..<(Int(record[at - 2]) << 8 | Int(record[at - 1])) { at += 2 + (Int(record[at]) << 8 | Int(record[at + 1])) }
        }
        #expect(sets.hvcC == record)
        #expect(sets.parameterSetUnits == Self.distinct(stream.units.filter { HEVCNALType.of($0[0])?.isParameterSet ?? false }))
        var sequences: [Int: HEVCSequenceParameterSet] = [:], pictures: [Int: HEVCPictureParameterSet] = [:]
        var checked = 0, slices = 0
        for unit in stream.units {
            let nal = try #require(HEVCNALUnit(unit))
            #expect(nal.bytes == unit)
            let written: HEVCNALUnit?
            switch nal.type {
            case .videoParameterSet?:
                written = try HEVCVideoParameterSet.renumbered(nal, id: HEVCVideoParameterSet(nal).id)
                try Self.checkLevel(unit)
            case .sequenceParameterSet?:
                let sps = try HEVCSequenceParameterSet(nal)
                #expect(Self.written(sps.elements, of: unit, header: 2) == unit, "\(stream.name) SPS elements")
                try Self.checkLevel(unit)
                sequences[sps.id] = sps
                written = try HEVCSequenceParameterSet.renumbered(nal, vps: sps.vpsID, id: sps.id)
            case .pictureParameterSet?:
                let pps = try HEVCPictureParameterSet(nal)
                #expect(Self.written(pps.elements, of: unit, header: 2) == unit, "\(stream.name) PPS elements")
                pictures[pps.id] = pps
                written = try HEVCPictureParameterSet.renumbered(nal, id: pps.id, sps: pps.spsID)
            case let type? where type.isSlice:
                let header = try HEVCSliceSegmentHeader(nal) { id in pictures[id].flatMap { pps in sequences[pps.spsID].map { ($0, pps) } } }
                written = try header.renumbered(nal, pps: header.ppsID)
                #expect(Self.written(header.elements, of: unit, header: 2) == unit, "\(stream.name) slice \(slices) elements")
                slices += 1
            default:
                written = nil
            }
            if let written {
                #expect(written.bytes == unit, "\(stream.name) unit \(checked) of type \(nal.typeValue)")
                checked += 1
            }
        }
        #expect(slices >= (name == "slices" ? 60 : 25) && checked >= slices + 3)
    }

    /// NAL unit `unit` (`header` bytes of header) with the elements read from its RBSP written
    /// again from their values.
    static func written(_ elements: [SyntaxReader.Element], of unit: [UInt8], header: Int) -> [UInt8] {
        Array(unit.prefix(header)) + RBSP.escaped(SyntaxWriter.written(elements, over: RBSP.unescaped(unit.dropFirst(header))))
    }

    /// A VPS or SPS keeps a level above the one asked and is raised to a higher one, which
    /// its `general_level_idc` then holds (the only byte that changes).
    static func checkLevel(_ unit: [UInt8]) throws {
        #expect(HEVCGeneralLevel.raised(to: 1, in: unit) == unit)
        let raised = try #require(HEVCNALUnit(HEVCGeneralLevel.raised(to: 255, in: unit)))
        let rbsp = try #require(HEVCNALUnit(unit)).rbsp
        let offset = (HEVCNALType.of(unit[0]) == .videoParameterSet ? 17 : 14) - 2
        #expect(raised.rbsp[offset] == 255 && rbsp[offset] < 255)
        #expect(zip(raised.rbsp, rbsp).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset) == [offset])
    }

    /// `units` without repetitions, in the order they first come.
    static func distinct(_ units: [[UInt8]]) -> [[UInt8]] {
        units.enumerated().filter { i, unit in !units[..<i].contains(unit) }.map(\.element)
    }

    /// Splitting and joining, emulation prevention and SEI messages on every unit of `stream`.
    static func checkUnits(_ stream: EncodedStream) throws {
        #expect(stream.units.count >= 25)
        let annexB = AnnexBUnits.stream(stream.units)
        #expect(annexB.withUnsafeBufferPointer { AnnexBUnits.units($0) } == stream.units)
        for lengthSize in [1, 2, 4] where stream.units.allSatisfy({ $0.count < 1 << (8 * lengthSize) }) {
            let sample = LengthPrefixedUnits.sample(stream.units, lengthSize: lengthSize)
            #expect(sample.withUnsafeBufferPointer { LengthPrefixedUnits($0, lengthSize: lengthSize).map(Array.init) } == stream.units)
        }
        let headerSize = stream.codec == .h264 ? 1 : 2
        var messages = 0
        for unit in stream.units {
            let payload = Array(unit.dropFirst(headerSize))
            #expect(RBSP.escaped(RBSP.unescaped(payload)) == payload, "\(stream.name): emulation prevention")
            let sei = stream.codec == .h264 ? H264NALType.of(unit[0]) == .sei : HEVCNALType.of(unit[0]).map { [.prefixSEI, .suffixSEI].contains($0) } ?? false
            guard sei else { continue }
            let rbsp = RBSP.unescaped(payload)
            let read = Array(SEIMessages(rbsp))
            #expect(!read.isEmpty && SEIMessages.rbsp(read) == rbsp, "\(stream.name): SEI")
            messages += read.count
        }
        // x264 and x265 write their settings as user data in an SEI message.
        #expect(messages >= 1, "\(stream.name): no SEI message read")
    }

    /// HDR10+ as a prefix SEI: put into an access unit before its first slice, found again, and
    /// found in the unit it makes.
    @Test func hdr10PlusMessagesAreInsertedAndFound() throws {
        let folder = try TemporaryFolder("bitstream-hdr10plus")
        let stream = try EncodedStream(.hevc, EncodedStream.hevcShapes[0], frames: 4, in: folder)
        let message = HDR10PlusSEI(payload: HDR10PlusSEI.signature + (0..<300).map { UInt8($0 % 251) })
        let inserted = message.inserted(into: stream.units)
        #expect(inserted.count == stream.units.count + 1)
        let first = try #require(inserted.firstIndex { HEVCNALType.of($0[0])?.isSlice ?? false })
        #expect(inserted[first - 1] == message.unit)
        for lengthSize in [nil, 4] as [Int?] {
            let bytes = lengthSize.map { LengthPrefixedUnits.sample(inserted, lengthSize: $0) } ?? AnnexBUnits.stream(inserted)
            #expect(bytes.withUnsafeBufferPointer { HDR10PlusSEI.find(in: $0, lengthSize: lengthSize) } == message)
        }
        // Inserting again replaces the message.
        #expect(message.inserted(into: inserted) == inserted)
    }
}
