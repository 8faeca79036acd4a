@testable import Bitstream
import Foundation
import TestSupport
import Testing

/// Renumbering x265's parameter sets (issue 50) on its own, on streams libx265 makes at test
/// time in the shapes a smart cut meets (the splice encoder's settings, a source's B-frames and
/// open GOPs, Main 10, wavefront entry points, several slices a picture, weighted prediction):
/// every VPS, SPS, PPS and slice segment header rewritten to other ids reads, by FFmpeg's
/// `trace_headers` and by the reader here, as the original except for the ids; renumbering
/// back gives the original bytes; the pictures decode the same (FFmpeg and libde265); bad
/// data is an error naming the element.
@Suite struct HEVCIDRewriterTests {
    static let shapes: [(name: String, args: [String])] = [
        ("splice", ["-preset", "fast", "-x265-params", "log-level=error:bframes=0:keyint=-1:open-gop=0:repeat-headers=1:frame-threads=1:pools=none"]),
        ("source-open-gop", ["-preset", "veryfast", "-x265-params", "log-level=error:keyint=8:min-keyint=8:bframes=4"]),
        ("main10", ["-preset", "medium", "-pix_fmt", "yuv420p10le", "-profile:v", "main10",
                    "-x265-params", "log-level=error:keyint=8:bframes=3:weightb=1:b-pyramid=1"]),
        ("wavefront-slices", ["-preset", "slow", "-x265-params", "log-level=error:wpp=1:slices=2:keyint=6:bframes=2:ctu=16:ref=3"]),
    ]

    static func units(_ shape: (name: String, args: [String]), in folder: TemporaryFolder) throws -> [[UInt8]] {
        let stream = folder.file("\(shape.name).hevc")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=0.8",
                                                   "-c:v", "libx265"] + shape.args + ["-y", stream.path])
        try #require(made.status == 0, "\(made.stderr)")
        return try Data(contentsOf: stream).withUnsafeBytes { AnnexBUnits.units($0.bindMemory(to: UInt8.self)) }
    }

    static func annexB(_ units: [[UInt8]]) -> Data { Data(units.flatMap { [0, 0, 0, 1] + $0 }) }

    static func renumbered(_ units: [[UInt8]], _ ids: HEVCParameterSetIDs) throws -> [[UInt8]] {
        var rewriter = HEVCIDRewriter(ids: ids)
        return try units.map { try rewriter.rewritten($0) }
    }

    /// `trace_headers`' elements of an Annex B stream as "name = value", positions, bits and
    /// alignment zero bits left out.
    static func trace(_ units: [[UInt8]], in folder: TemporaryFolder) throws -> [String] {
        let file = folder.file("trace-\(UUID().uuidString).hevc")
        try annexB(units).write(to: file)
        let run = try TestSupport.tool("ffmpeg", ["-hide_banner", "-v", "debug", "-i", file.path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        try #require(run.status == 0, "\(run.stderr)")
        return run.stderr.split(separator: "\n").compactMap { line in
            guard line.contains("[trace_headers"), let close = line.firstIndex(of: "]") else { return nil }
            let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, Int(fields[0]) != nil, fields[fields.count - 2] == "=" else { return nil }
            // Zero bits up to a byte boundary move with the ids.
            guard !["alignment_bit_equal_to_zero", "rbsp_alignment_zero_bit"].contains(fields[1]) else { return nil }
            return "\(fields[1]) = \(fields[fields.count - 1])"
        }
    }

    static let idNames = ["vps_video_parameter_set_id", "sps_video_parameter_set_id", "sps_seq_parameter_set_id",
                          "pps_pic_parameter_set_id", "pps_seq_parameter_set_id", "slice_pic_parameter_set_id"]

    @Test(arguments: shapes.map { $0.name }) func renumberedSetsAndSlicesReadAsTheOriginals(shape name: String) throws {
        let folder = try TemporaryFolder("hevc-ids")
        let shape = try #require(Self.shapes.first { $0.name == name })
        let units = try Self.units(shape, in: folder)
        let ids = HEVCParameterSetIDs(vps: 3, sps: 14, pps: 37)
        let renumbered = try Self.renumbered(units, ids)
        #expect(renumbered.count == units.count)
        // Back to x265's ids: the original bytes.
        #expect(try Self.renumbered(renumbered, HEVCParameterSetIDs(vps: 0, sps: 0, pps: 0)) == units)

        let before = try Self.trace(units, in: folder), after = try Self.trace(renumbered, in: folder)
        #expect(before.count == after.count && before.count > 100, "\(before.count) and \(after.count) elements")
        for (a, b) in zip(before, after) {
            let name = String(a.prefix { $0 != " " })
            if Self.idNames.contains(name) {
                let wanted = name.hasPrefix("vps") || name == "sps_video_parameter_set_id" ? 3 : name.hasPrefix("sps") || name == "pps_seq_parameter_set_id" ? 14 : 37
                #expect(a == "\(name) = 0" && b == "\(name) = \(wanted)", "\(a) became \(b)")
            } else {
                #expect(a == b, "\(name): \(a) became \(b)")
            }
        }
        try Self.checkElements(units, renumbered)
        try Self.checkPictures(units, renumbered, in: folder)
    }

    /// The reader's own elements: the same names and values but for the ids.
    static func checkElements(_ units: [[UInt8]], _ renumbered: [[UInt8]]) throws {
        func strip(_ elements: [SyntaxReader.Element]) -> [String] {
            elements.filter { !idNames.contains($0.name) && $0.name != "alignment_bit_equal_to_zero" }.map { "\($0.name) = \($0.value)" }
        }
        var slices = 0
        var table: [Int: (HEVCSequenceParameterSet, HEVCPictureParameterSet)] = [:], newTable = table
        var sps: [Int: HEVCSequenceParameterSet] = [:], newSPS = sps
        for (a, b) in zip(units, renumbered) {
            let (x, y) = (try #require(HEVCNALUnit(a)), try #require(HEVCNALUnit(b)))
            switch x.type {
            case .sequenceParameterSet?:
                let (p, q) = (try HEVCSequenceParameterSet(x), try HEVCSequenceParameterSet(y))
                #expect(strip(p.elements) == strip(q.elements))
                #expect(q.id == 14 && q.vpsID == 3)
                (sps[p.id], newSPS[q.id]) = (p, q)
            case .pictureParameterSet?:
                let (p, q) = (try HEVCPictureParameterSet(x), try HEVCPictureParameterSet(y))
                #expect(strip(p.elements) == strip(q.elements))
                #expect(q.id == 37 && q.spsID == 14)
                (table[p.id], newTable[q.id]) = ((try #require(sps[p.spsID]), p), (try #require(newSPS[q.spsID]), q))
            case let type? where type.isSlice:
                let p = try HEVCSliceSegmentHeader(x) { table[$0] }, q = try HEVCSliceSegmentHeader(y) { newTable[$0] }
                #expect(strip(p.elements) == strip(q.elements))
                #expect(q.ppsID == 37)
                // The slice data: the same bytes.
                #expect(x.rbsp[((p.alignment + 8) / 8)...] == y.rbsp[((q.alignment + 8) / 8)...])
                slices += 1
            default: break
            }
        }
        #expect(slices >= 20)
    }

    /// FFmpeg's and libde265's pictures of both streams: the same.
    static func checkPictures(_ units: [[UInt8]], _ renumbered: [[UInt8]], in folder: TemporaryFolder) throws {
        var decoded: [String] = [], second: [Data] = []
        for list in [units, renumbered] {
            let file = folder.file("pictures-\(UUID().uuidString).hevc"), raw = folder.file("dec265-\(UUID().uuidString).yuv")
            try annexB(list).write(to: file)
            let ffmpeg = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "framemd5", "-"])
            try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")
            decoded.append(ffmpeg.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n"))
            let dec265 = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/libde265-dec265"), ["-q", "-o", raw.path, file.path])
            try #require(dec265.status == 0, "\(dec265.stderr)")
            second.append(try Data(contentsOf: raw))
        }
        #expect(decoded[0] == decoded[1] && !decoded[0].isEmpty)
        #expect(second[0] == second[1] && !second[0].isEmpty)
    }
}

extension HEVCIDRewriterTests {
    /// A PPS with ids `ids` (ue(v) each), every flag 0 and every number 0 after them.
    static func pps(_ ids: [Int]) -> [UInt8] {
        var w = BitWriter()
        for id in ids { w.ue(id) }
        w.bits(0, 7)
        for _ in 0..<3 { w.ue(0) }
        w.bits(0, 3)
        for _ in 0..<2 { w.se(0) }
        w.bits(0, 10)
        w.ue(0)
        w.bits(0, 2)
        w.bits(1, 1)
        w.align(with: 0)
        return HEVCNALType.pictureParameterSet.header + RBSP.escaped(w.bytes)
    }

    @Test func outOfRangeIdsAreErrorsNamingTheElement() throws {
        let bad = try #require(HEVCNALUnit(Self.pps([64, 0])))
        #expect(throws: SyntaxError(element: "pps_pic_parameter_set_id", problem: .outOfRange(64, 0...63))) { try HEVCPictureParameterSet(bad) }
        #expect("\(SyntaxError(element: "pps_pic_parameter_set_id", problem: .outOfRange(64, 0...63)))" == "pps_pic_parameter_set_id is 64, outside 0...63")
        let short = try #require(HEVCNALUnit(Self.pps([0, 16])))
        #expect(throws: SyntaxError(element: "pps_seq_parameter_set_id", problem: .outOfRange(16, 0...15))) { try HEVCPictureParameterSet(short) }
        let cut = try #require(HEVCNALUnit(HEVCNALType.pictureParameterSet.header + [0x80]))
        #expect(throws: SyntaxError.self) { try HEVCPictureParameterSet(cut) }
        var rewriter = HEVCIDRewriter(ids: HEVCParameterSetIDs(vps: 1, sps: 1, pps: 64))
        let good = Self.pps([0, 0])
        #expect(try HEVCPictureParameterSet(#require(HEVCNALUnit(good))).id == 0)
        #expect(throws: SyntaxError(element: "pps_pic_parameter_set_id", problem: .outOfRange(64, 0...63))) { try rewriter.rewritten(good) }
        // A slice naming a PPS that was not sent.
        let slice: [UInt8] = HEVCNALType.idrWithDecodableLeadingPictures.header + [0b1010_0000]
        var fresh = HEVCIDRewriter(ids: HEVCParameterSetIDs(vps: 1, sps: 1, pps: 1))
        #expect(throws: SyntaxError.self) { try fresh.rewritten(slice) }
    }

    @Test func freeIdsAvoidTheStreamsSets() throws {
        let folder = try TemporaryFolder("hevc-free-ids")
        let units = try Self.units(Self.shapes[0], in: folder)
        let sets = units.filter { HEVCNALType.of($0[0])?.isParameterSet ?? false }
        #expect(HEVCParameterSetIDs(avoiding: sets) == HEVCParameterSetIDs(vps: 1, sps: 1, pps: 1))
        let others = try Self.renumbered(units, HEVCParameterSetIDs(vps: 1, sps: 0, pps: 2)).filter { HEVCNALType.of($0[0])?.isParameterSet ?? false }
        #expect(HEVCParameterSetIDs(avoiding: sets + others) == HEVCParameterSetIDs(vps: 2, sps: 1, pps: 1))
        #expect(HEVCParameterSetIDs(avoiding: [Self.pps(Array(0...0))] + (1...63).map { Self.pps([$0, 0]) }) == nil)
        #expect(HEVCParameterSetIDs(avoiding: [HEVCNALType.pictureParameterSet.header]) == nil)
    }

    /// Damaged units (bits flipped, cut short) are read or refused, never a trap.
    @Test func damagedUnitsAreRefusedNotTrapped() throws {
        let folder = try TemporaryFolder("hevc-ids-fuzz")
        let units = try Self.units(Self.shapes[2], in: folder)
        var g = SplitMix64(state: 50)
        var refused = 0
        for _ in 0..<400 {
            var rewriter = HEVCIDRewriter(ids: HEVCParameterSetIDs(vps: 1, sps: 1, pps: 1))
            for unit in units {
                var damaged = unit
                if Int.random(in: 0..<4, using: &g) == 0 {
                    for _ in 0..<Int.random(in: 1...3, using: &g) {
                        let bit = Int.random(in: 16..<(damaged.count * 8), using: &g)
                        damaged[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                    }
                    if Int.random(in: 0..<3, using: &g) == 0 { damaged = Array(damaged.prefix(Int.random(in: 2...damaged.count, using: &g))) }
                }
                do { _ = try rewriter.rewritten(damaged) } catch is SyntaxError { refused += 1 }
            }
        }
        #expect(refused > 0)
    }
}
