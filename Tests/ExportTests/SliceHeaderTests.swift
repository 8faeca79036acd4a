@testable import Bitstream
@testable import Export
import TestSupport
import Testing
import Media

/// The bit-level half of resuming at open-GOP recovery points (issue 41) on its own: emulation
/// prevention, Exp-Golomb writing, and slice headers read, rewritten and read again, on NAL
/// units x264 wrote (`testsrc2=size=16x16`, `-bf 3 -x264-params open-gop=1:keyint=25`, CABAC
/// and `cabac=0`); the expected fields are what ffmpeg's trace_headers reads from them.
@Suite struct SliceHeaderTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    static let sps = bytes("6764000aacd95ec044000003000400000300c83c489658")
    static let ppsCABAC = bytes("68ef8fcb"), ppsCAVLC = bytes("68cf8fcb")
    static let recoverySEI = bytes("060601c480")
    /// The recovery-point I (frame_num 13, pic_order_cnt_lsb 50, sliding window) and the P after
    /// it (frame_num 14, lsb 58, ref list modification 0, MMCO 1 with differences 4, 2, 1).
    static let cabacI = bytes("4188ee427fd94adfb1e0575ceb112874a16fdabd6505ee6b9fc6cda8a53d0e174716f71509dc2fd927b89fc0e7812dbb71b810cb876e5e37386ac16fd971a4c1603056200a7eab1050f920374eede2ff1ce2852de55585f682ba421e341d6bf42e51a8be63d715c2b15ded99093652d356486936d0a22bbe0d05fd23523f4fc183959a05a44b85bbe8e40d133830c05447cff13dba2f28a8427272f95b089a77a34fd156bb01f715b2aa90b225fcd504bc3cdb91110bb70bf808edb4e952a5bd2d62268c07e0")
    static let cabacP = bytes("419bdd39328a9a58afbb683754aa9104f2a7fac0c4e9946bff1bec71")
    static let cavlcI = bytes("4188ee427a20115606042fc0428d9800f5a9ca078a0112115a830162f0ce84342a07495ffe378000407641a039c0cd0556ae3543645372f544ffed22632e636741d2eeff76643d98b18e633ffa0b34b8a90dc357f6d6a3506190bf1383d5ebab863f23cad3d5ea01f210898a03a53fdf2c0f3b3a5702465ff7c1000811a68503080c00300205b9f054adffa5c0b67480dc9f61a1dfae1e6ab37f38005f08eab8469000f60c58a829112237f1a4682f1457262934feb2792b602351bfff6a401893be1e2aefb9")
    static let cavlcP = bytes("419bdd39328a9a515fc2cc0c1ca4f08f13f788e50077cba79fd0bf")

    static func table(cabac: Bool) throws -> ParameterTable {
        let record = [1, 0x64, 0x00, 0x0A, 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, 4] + (cabac ? ppsCABAC : ppsCAVLC)
        return ParameterTable(try #require(ParameterSets(avcC: record)))
    }

    static func parse(_ unit: [UInt8], _ table: ParameterTable) throws -> SliceHeader {
        try SliceHeader(header: unit[0], rbsp: RBSP.unescaped(unit.dropFirst()), table: table)
    }

    /// The slice data's bits: from the header's end (CAVLC) or the byte after it (CABAC) to the
    /// stop bit (the alignment after it depends on where the data ends).
    static func data(_ unit: [UInt8], _ slice: SliceHeader, cabac: Bool) -> [Int] {
        let rbsp = RBSP.unescaped(unit.dropFirst())
        let start = cabac ? (slice.headerEnd + 7) / 8 * 8 : slice.headerEnd
        var bits = (start..<rbsp.count * 8).map { BitWriter.read(rbsp, at: $0, width: 1) }
        while bits.last == 0 { bits.removeLast() }
        return bits
    }

    @Test func emulationPreventionIsAddedAndRemoved() {
        #expect(RBSP.escaped([0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 4]) == [0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 3, 3, 0, 0, 4])
        #expect(RBSP.unescaped([0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 3, 3, 0, 0, 4]) == [0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 4])
        // A final 00 00 (cabac_zero_words) gets its 03 too.
        #expect(RBSP.escaped([0x80, 0, 0]) == [0x80, 0, 0, 3])
        var g = SplitMix64(state: 41)
        for _ in 0..<500 {
            let rbsp = (0..<Int.random(in: 0...40, using: &g)).map { _ in UInt8([0, 0, 0, 1, 2, 3, 0x80, 0xFF][Int.random(in: 0..<8, using: &g)]) }
            let escaped = RBSP.escaped(rbsp)
            #expect(RBSP.unescaped(escaped) == rbsp)
            let emulated = escaped.indices.dropLast(2).contains { (k: Int) -> Bool in
                escaped[k] == 0 && escaped[k + 1] == 0 && escaped[k + 2] <= 2
            }
            #expect(!emulated)
        }
    }

    @Test func exponentialGolombCodesReadBackAsWritten() throws {
        var w = BitWriter()
        for v in 0..<300 { w.ue(v) }
        for v in -150...150 { w.se(v) }
        w.bits(0b1011, 4)
        w.copy([0xA5, 0x3C], bits: 3..<13)
        var r = ExpGolombReader(w.bytes)
        for v in 0..<300 { #expect(try r.ue() == v) }
        for v in -150...150 { #expect(try r.se() == v) }
        #expect(try r.bits(4) == 0b1011)
        #expect(try r.bits(10) == 0b00_1010_0111)
    }

    @Test func theParameterSetsGiveTheSliceLayout() throws {
        let sps = try #require(SequenceParameterSet(Self.sps))
        #expect(sps.id == 0 && sps.log2MaxFrameNum == 4 && sps.pocType == 0 && sps.log2MaxPocLsb == 6 && !sps.gapsInFrameNumAllowed)
        let gaps = try #require(SequenceParameterSet.allowingFrameNumGaps(Self.sps).flatMap(SequenceParameterSet.init))
        var expected = sps
        expected.gapsInFrameNumAllowed = true
        #expect(gaps == expected)
        let cabac = try #require(PictureParameterSet(Self.ppsCABAC)), cavlc = try #require(PictureParameterSet(Self.ppsCAVLC))
        #expect(cabac.cabac && !cavlc.cabac)
        #expect(cabac.weightedPred && cabac.weightedBipredIdc == 2 && cabac.deblockingFilterControlPresent && !cabac.redundantPicCntPresent)
        #expect(Self.recoverySEI.withUnsafeBufferPointer { OpenGOPResume.isRecoveryPointSEI($0) && OpenGOPResume.isOnlyRecoveryPointSEI($0) })
    }

    @Test(arguments: [true, false]) func slicesReadAsTraceHeadersReadsThem(cabac: Bool) throws {
        let table = try Self.table(cabac: cabac)
        let i = try Self.parse(cabac ? Self.cabacI : Self.cavlcI, table)
        #expect(i.kind == .i && i.nalType == .slice && i.frameNum == 13 && i.pocLsb == 50 && i.marking == .slidingWindow)
        let p = try Self.parse(cabac ? Self.cabacP : Self.cavlcP, table)
        #expect(p.kind == .p && p.frameNum == 14 && p.pocLsb == 58 && p.modifications == [SliceHeader.ListModification(list: 0, idc: 0, value: 0)])
        #expect(p.marking == .adaptive([4, 2, 1].map { SliceHeader.MemoryOperation(operation: 1, arguments: [$0]) }))
    }

    @Test(arguments: [true, false]) func rewritingTheSameValuesGivesTheSameBytes(cabac: Bool) throws {
        let table = try Self.table(cabac: cabac)
        for unit in cabac ? [Self.cabacI, Self.cabacP] : [Self.cavlcI, Self.cavlcP] {
            let slice = try Self.parse(unit, table)
            let same = SliceHeader.Rewrite(nalType: slice.nalType, frameNum: slice.frameNum, pocLsb: slice.pocLsb, marking: slice.marking)
            #expect(try slice.rewritten(same, rbsp: RBSP.unescaped(unit.dropFirst()), table: table) == unit)
        }
    }

    /// Rewriting from the NAL unit as stored (only the header's bytes unescaped when its length
    /// stays) gives what rewriting the whole RBSP gives, whether the length stays or not.
    @Test(arguments: [true, false]) func rewritingAsStoredMatchesRewritingTheRBSP(cabac: Bool) throws {
        let table = try Self.table(cabac: cabac)
        for unit in cabac ? [Self.cabacI, Self.cabacP] : [Self.cavlcI, Self.cavlcP] {
            let slice = try Self.parse(unit, table)
            for change in [SliceHeader.Rewrite(nalType: .slice, frameNum: 3, pocLsb: 17, marking: slice.marking),
                           SliceHeader.Rewrite(nalType: .slice, frameNum: 0, pocLsb: 0, marking: slice.marking),
                           SliceHeader.Rewrite(nalType: .slice, frameNum: 5, pocLsb: 9, marking: .adaptive([])),
                           SliceHeader.Rewrite(nalType: .idr, frameNum: 0, idrPicID: 3, pocLsb: 0, marking: .idr(noOutputOfPriorPics: false, longTerm: false))]
            where change.nalType == .slice || slice.kind == .i {
                let whole = try slice.rewritten(change, rbsp: RBSP.unescaped(unit.dropFirst()), table: table)
                #expect(try unit.withUnsafeBufferPointer { try slice.rewritten(change, unit: $0, table: table) } == whole)
            }
        }
    }

    @Test(arguments: [true, false]) func aRecoveryPointBecomesAnIDRPicture(cabac: Bool) throws {
        let table = try Self.table(cabac: cabac)
        let unit = cabac ? Self.cabacI : Self.cavlcI
        let slice = try Self.parse(unit, table)
        let idr = try slice.rewritten(SliceHeader.Rewrite(nalType: .idr, frameNum: 0, idrPicID: 2, pocLsb: 0,
                                                          marking: .idr(noOutputOfPriorPics: false, longTerm: false)),
                                      rbsp: RBSP.unescaped(unit.dropFirst()), table: table)
        let again = try Self.parse(idr, table)
        #expect(idr[0] == 0x45 && again.nalType == .idr && again.kind == .i && again.idrPicID == 2)
        #expect(again.frameNum == 0 && again.pocLsb == 0 && again.marking == .idr(noOutputOfPriorPics: false, longTerm: false))
        // Its nal_ref_idc kept; four bits longer (idr_pic_id 2 is 3 bits, the IDR marking 2 bits
        // instead of 1).
        #expect(again.headerEnd == slice.headerEnd + 4)
        #expect(Self.data(idr, again, cabac: cabac) == Self.data(unit, slice, cabac: cabac))
    }

    @Test(arguments: [true, false]) func aPictureAfterItIsRenumbered(cabac: Bool) throws {
        let table = try Self.table(cabac: cabac)
        let unit = cabac ? Self.cabacP : Self.cavlcP
        let slice = try Self.parse(unit, table)
        // One frame number after the recovery point: the operations on pictures 4 + 1 and 2 + 1
        // before it (from before the recovery point) go, the one on the picture just before stays.
        let marking = OpenGOPRewriter.marking(slice.marking, counted: 2)
        #expect(marking == .adaptive([SliceHeader.MemoryOperation(operation: 1, arguments: [1])]))
        let renumbered = try slice.rewritten(SliceHeader.Rewrite(nalType: .slice, frameNum: 2, pocLsb: 8, marking: marking),
                                             rbsp: RBSP.unescaped(unit.dropFirst()), table: table)
        let again = try Self.parse(renumbered, table)
        #expect(again.nalType == .slice && again.kind == .p && again.frameNum == 2 && again.pocLsb == 8 && again.marking == marking)
        #expect(again.modifications == slice.modifications)
        #expect(Self.data(renumbered, again, cabac: cabac) == Self.data(unit, slice, cabac: cabac))
    }

    /// A stream's samples are told apart (IDR, recovery point, other), and one the renumbering
    /// cannot follow (a long-term reference) is refused, with the reason the export's warning names.
    @Test func samplesAreToldApartAndLongTermReferencesRefused() throws {
        let record = [1, 0x64, 0x00, 0x0A, 0xFF, 0xE1, 0, UInt8(Self.sps.count)] + Self.sps + [1, 0, 4] + Self.ppsCABAC
        let resume = try OpenGOPResume(avcC: record)
        let table = try Self.table(cabac: true)
        func picture(_ units: [[UInt8]]) throws -> OpenGOPResume.Picture {
            try LengthPrefixedUnits.sample(units, lengthSize: resume.lengthSize).withUnsafeBufferPointer { try resume.picture($0) }
        }
        #expect(try picture([Self.recoverySEI, Self.cabacI]) == .recoveryPoint)
        #expect(try picture([Self.cabacI]) == .other)
        #expect(try picture([Self.cabacP]) == .other)
        let i = try Self.parse(Self.cabacI, table)
        let idr = try i.rewritten(SliceHeader.Rewrite(nalType: .idr, frameNum: 0, idrPicID: 3, pocLsb: 0, marking: .idr(noOutputOfPriorPics: false, longTerm: false)),
                                  rbsp: RBSP.unescaped(Self.cabacI.dropFirst()), table: table)
        #expect(try picture([idr]) == .idr(id: 3))
        let p = try Self.parse(Self.cabacP, table)
        let longTerm = try p.rewritten(SliceHeader.Rewrite(nalType: .slice, frameNum: 14, pocLsb: 58,
                                                           marking: .adaptive([SliceHeader.MemoryOperation(operation: 6, arguments: [0])])),
                                       rbsp: RBSP.unescaped(Self.cabacP.dropFirst()), table: table)
        #expect(throws: SliceHeader.Unsupported(description: "it uses long-term references or memory management operation 5")) {
            try picture([longTerm])
        }
    }

    /// A recovery point is withdrawn when a picture shown after it modifies its reference list
    /// to name a leading reference picture (dropped by a cut); naming the recovery point is fine.
    @Test func aRecoveryPointReferredPastIsWithdrawn() throws {
        let record = [1, 0x64, 0x00, 0x0A, 0xFF, 0xE1, 0, UInt8(Self.sps.count)] + Self.sps + [1, 0, 4] + Self.ppsCABAC
        let table = try Self.table(cabac: true)
        let p = try Self.parse(Self.cabacP, table)
        func renumbered(_ frameNum: Int) throws -> [UInt8] {
            try p.rewritten(SliceHeader.Rewrite(nalType: .slice, frameNum: frameNum, pocLsb: 58, marking: p.marking),
                            rbsp: RBSP.unescaped(Self.cabacP.dropFirst()), table: table)
        }
        func feed(_ pictures: [(units: [[UInt8]], pts: Int64, key: Bool)]) -> (found: [Bool], withdrawn: [Int]) {
            var check = OpenGOPCheck(avcC: record)
            let found = pictures.enumerated().map { index, picture in
                LengthPrefixedUnits.sample(picture.units, lengthSize: 4).withUnsafeBufferPointer {
                    check.resumes(sample: $0, index: index, pts: picture.pts, key: picture.key, startsAfresh: false)
                }
            }
            #expect(check.rewritable && check.refusal == nil)
            return (found, check.withdrawn)
        }
        // The I (frame_num 13, shown at 10), then the P (14, at 20) naming frame_num 13.
        let kept = feed([([Self.recoverySEI, Self.cabacI], 10, true), ([Self.cabacP], 20, false)])
        #expect(kept.found == [true, false] && kept.withdrawn.isEmpty)
        // A leading reference picture (14, shown at 5), then the P renumbered 15 names it.
        let past = feed([([Self.recoverySEI, Self.cabacI], 10, true), ([Self.cabacP], 5, false), ([try renumbered(15)], 20, false)])
        #expect(past.found == [true, false, false] && past.withdrawn == [0])
    }

    @Test func fieldsAndOtherSliceKindsAreRefused() throws {
        let table = try Self.table(cabac: true)
        #expect(throws: SliceHeader.Unsupported.self) { try SliceHeader(header: 0x67, rbsp: [0x80], table: table) }
        // first_mb 0, slice_type 3 (SP), pps 0.
        var w = BitWriter()
        w.ue(0); w.ue(3); w.ue(0); w.bits(0, 8)
        #expect(throws: SliceHeader.Unsupported.self) { try SliceHeader(header: 0x41, rbsp: w.bytes, table: table) }
    }
}
