@testable import Bitstream
import Foundation
import TestSupport
import Testing

/// Every reader of the module on random bytes and on damaged real units (bits flipped, bytes
/// cut, inserted, zeroed), from a fixed list of seeds: each input is read or refused, never a
/// trap (a trap ends the test process) and never an endless loop (the run's time is bounded).
/// Enough damaged units must still read to show the readers were reached, not refused at once.
@Suite struct FuzzTests {
    static let seeds: [UInt64] = [1, 2, 3, 5, 8, 13, 21, 34]
    static let inputsPerSeed = TestTier.count(300, long: 3000)

    /// What the readers made of the inputs.
    struct Tally {
        var inputs = 0
        /// Inputs a structure (parameter set, slice header, record, SEI message) was read from.
        var parsed = 0
        /// Samples a smart cut's rewriting changed.
        var rewritten = 0
    }

    @Test func damagedAndRandomInputsAreReadOrRefused() throws {
        let folder = try TemporaryFolder("bitstream-fuzz")
        let h264 = try EncodedStream(.h264, EncodedStream.h264Shapes[0], size: "64x48", frames: 10, in: folder)
        let hevc = try EncodedStream(.hevc, EncodedStream.hevcShapes[1], size: "64x48", frames: 10, in: folder)
        let context = try Context(h264: h264, hevc: hevc)
        let clock = ContinuousClock(), start = clock.now
        var tally = Tally()
        for seed in Self.seeds {
            var g = SplitMix64(state: seed)
            for n in 0..<Self.inputsPerSeed {
                let input: [UInt8]
                switch n % 4 {
                case 0: input = (0..<Int.random(in: 0...48, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                case 1, 2: input = Self.damaged(h264.units.randomElement(using: &g)!, &g)
                default: input = Self.damaged(hevc.units.randomElement(using: &g)!, &g)
                }
                tally.inputs += 1
                if context.read(input) { tally.parsed += 1 }
                tally.rewritten += context.rewriteH264(input)
            }
            // Records and whole samples, damaged.
            for _ in 0..<20 {
                let avcC = Self.damaged(h264.record, &g), hvcC = Self.damaged(hevc.record, &g)
                tally.inputs += 2
                if context.readRecords(avcC: avcC, hvcC: hvcC) { tally.parsed += 1 }
            }
        }
        let elapsed = clock.now - start
        #expect(tally.inputs == Self.seeds.count * (Self.inputsPerSeed + 40))
        // Three in four inputs are damaged units, whose damage often spares the structure (about 40% read).
        #expect(tally.parsed >= tally.inputs / 3, "only \(tally.parsed) of \(tally.inputs) inputs read")
        #expect(tally.rewritten >= 1_000, "only \(tally.rewritten) samples rewritten")
        #expect(elapsed < .seconds(60), "the fuzzer took \(elapsed)")
    }

    /// `unit` damaged in one to four places.
    static func damaged(_ unit: [UInt8], _ g: inout SplitMix64) -> [UInt8] {
        var out = unit
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            guard !out.isEmpty else { break }
            let at = Int.random(in: 0..<out.count, using: &g)
            switch Int.random(in: 0..<6, using: &g) {
            case 0, 1: out[at] ^= 1 << UInt8.random(in: 0...7, using: &g)
            case 2: out.removeSubrange(at...)
            case 3: out.insert(UInt8.random(in: 0...255, using: &g), at: at)
            case 4: out.replaceSubrange(at ..< min(out.count, at + 3), with: [0, 0, UInt8.random(in: 0...3, using: &g)])
            default: out[at] = out[at] == 0 ? 0xFF : 0
            }
        }
        return out
    }

    /// The readers, with the undamaged streams' parameter sets for slices to name.
    struct Context {
        let record: [UInt8]
        let table: ParameterTable
        let resume: OpenGOPResume
        let sequences: [Int: HEVCSequenceParameterSet]
        let pictures: [Int: HEVCPictureParameterSet]

        init(h264: EncodedStream, hevc: EncodedStream) throws {
            record = h264.record
            table = ParameterTable(try #require(ParameterSets(avcC: h264.record)))
            resume = try OpenGOPResume(avcC: h264.record)
            var sequences: [Int: HEVCSequenceParameterSet] = [:], pictures: [Int: HEVCPictureParameterSet] = [:]
            for unit in hevc.units {
                guard let nal = HEVCNALUnit(unit) else { continue }
                if nal.type == .sequenceParameterSet { let sps = try HEVCSequenceParameterSet(nal); sequences[sps.id] = sps }
                if nal.type == .pictureParameterSet { let pps = try HEVCPictureParameterSet(nal); pictures[pps.id] = pps }
            }
            (self.sequences, self.pictures) = (sequences, pictures)
        }

        /// Reads `input` as every kind of unit and sample; whether a structure was read.
        func read(_ input: [UInt8]) -> Bool {
            var parsed = false
            input.withUnsafeBufferPointer { bytes in
                _ = AnnexBUnits.units(bytes)
                for lengthSize in 1...4 { _ = Array(LengthPrefixedUnits(bytes, lengthSize: lengthSize, keepingCutShort: true)) }
                _ = HDR10PlusSEI.find(in: bytes, lengthSize: nil)
                _ = HDR10PlusSEI.find(in: bytes, lengthSize: 4)
                // As a length-prefixed sample of this unit alone.
                let sample = LengthPrefixedUnits.sample([input], lengthSize: resume.lengthSize)
                parsed = sample.withUnsafeBufferPointer { (try? resume.read($0)) != nil } && H264NALType.of(input.first ?? 0)?.isPictureSlice == true
                _ = OpenGOPResume.isRecoveryPointSEI(bytes)
            }
            _ = RBSP.escaped(RBSP.unescaped(input))
            // As an SEI unit of either codec.
            let first = input.first ?? 0
            let header = H264NALType.of(first) == .sei ? 1 : [.prefixSEI, .suffixSEI].contains(HEVCNALType.of(first)) ? 2 : nil
            if let header, SEIMessages(RBSP.unescaped(input.dropFirst(header))).contains(where: { _ in true }) { parsed = true }
            parsed = readH264(input) || parsed
            parsed = readHEVC(input) || parsed
            return parsed
        }

        func readH264(_ input: [UInt8]) -> Bool {
            var parsed = false
            if let sps = SequenceParameterSet(input) {
                _ = sps.decFrameBuffering
                _ = SequenceParameterSet.elements(of: input).map { SyntaxWriter.written($0, over: RBSP.unescaped(input.dropFirst())) }
                _ = SequenceParameterSet.allowingFrameNumGaps(input)
                parsed = true
            }
            if PictureParameterSet(input) != nil { parsed = true }
            guard let first = input.first, H264NALType.of(first)?.isPictureSlice == true,
                  let slice = try? SliceHeader(header: first, rbsp: RBSP.unescaped(input.dropFirst()), table: table) else { return parsed }
            let same = SliceHeader.Rewrite(nalType: slice.nalType, frameNum: slice.frameNum, idrPicID: slice.idrPicID, pocLsb: slice.pocLsb, marking: slice.marking)
            _ = try? input.withUnsafeBufferPointer { try slice.rewritten(same, unit: $0, table: table) }
            return true
        }

        /// Rewrites `input` as a sample's one unit the ways a smart cut does: as a copied picture
        /// after a recovery point (made an IDR picture, or renumbered) and as a re-encoded IDR
        /// picture set apart from the one before.
        func rewriteH264(_ input: [UInt8]) -> Int {
            var rewritten = 0
            let sample = { (units: [[UInt8]]) in LengthPrefixedUnits.sample(units, lengthSize: resume.lengthSize) }
            if let resumed = OpenGOPRewriter.plan(recoveryPoints: [0], record: record, rendered: nil, copies: [0, 1, 2]) {
                // After a recovery-point SEI an I slice is a recovery point; the pictures after it are renumbered.
                for units in [[Self.recoveryPointSEI, input], [input], [input]] {
                    sample(units).withUnsafeBufferPointer { if (try? resumed.rewriter.copied($0, continuing: false)) != nil { rewritten += 1 } }
                }
            }
            if (try? IDRSeparation(record: record)?.separated(sample([input]), previous: 4)) != nil { rewritten += 1 }
            return rewritten
        }

        /// An SEI unit holding a recovery point with recovery_frame_cnt 0 (x264's).
        static let recoveryPointSEI: [UInt8] = [0x06, 0x06, 0x01, 0xC4, 0x80]

        func readHEVC(_ input: [UInt8]) -> Bool {
            guard let nal = HEVCNALUnit(input) else { return false }
            var rewriter = HEVCIDRewriter(ids: HEVCParameterSetIDs(vps: 1, sps: 1, pps: 1))
            _ = HEVCParameterSetIDs(avoiding: [input])
            switch nal.type {
            case .videoParameterSet?: return (try? HEVCVideoParameterSet(nal)) != nil && (try? rewriter.rewritten(input)) != nil
            case .sequenceParameterSet?: return (try? HEVCSequenceParameterSet(nal)) != nil && (try? rewriter.rewritten(input)) != nil
            case .pictureParameterSet?: return (try? HEVCPictureParameterSet(nal)) != nil
            case let type? where type.isSlice:
                return (try? HEVCSliceSegmentHeader(nal) { id in pictures[id].flatMap { pps in sequences[pps.spsID].map { ($0, pps) } } }) != nil
            default: return false
            }
        }

        func readRecords(avcC: [UInt8], hvcC: [UInt8]) -> Bool {
            var parsed = false
            if let sets = ParameterSets(avcC: avcC) {
                _ = (sets.avcC, sets.freeID, sets.firstSequence, sets.allowingFrameNumGaps(ids: [0]))
                _ = try? OpenGOPResume(avcC: avcC)
                _ = IDRSeparation(record: avcC)
                parsed = true
            }
            if let sets = HEVCParameterSets(hvcC: hvcC) {
                _ = (sets.hvcC, try? sets.codingBlockSizes(), HEVCParameterSetIDs(avoiding: sets.parameterSetUnits))
                parsed = true
            }
            return parsed
        }
    }
}
