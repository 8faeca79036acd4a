import Composition
@testable import Export
import Foundation
import TestSupport
import Testing
import Media

/// PacketMap on its own: mapped timestamps are exact multiples of the rate, removed packets are
/// dropped and counted, decode times stay strictly increasing and never after presentation.
@Suite struct PacketMapTests {
    /// A 10 s, 30 fps stream with no reordering: packet i at i/30 s.
    func packets(_ count: Int = 300, fps: Int32 = 30) -> [PacketMap.SourcePacket] {
        (0..<count).map { i in
            let t = Time(value: Int64(i), timescale: fps)
            return PacketMap.SourcePacket(pts: t, duration: Time(value: 1, timescale: fps))
        }
    }

    func track(_ edit: (inout Composition) throws -> Void) throws -> CompositionTrack {
        var c = try Composition(asset: movie())
        try edit(&c)
        return try #require(c.track(withID: 0))
    }

    @Test func anUneditedTrackKeepsEveryTimestamp() throws {
        let map = try PacketMap(packets: packets(), track: try track { _ in }, preferred: 15360)
        #expect(map.entries.count == 300 && map.dropped == 0 && map.exact)
        for (i, e) in map.entries.enumerated() {
            #expect(e.index == i)
            #expect(Int64(e.pts) * 30 == Int64(i) * Int64(map.timescale), "packet \(i)")
            #expect(e.dts == e.pts && e.duration * 30 == Int64(map.timescale))
        }
    }

    @Test func aQuarterSpeedSectionPlaysEachFrameFourTimesAsLong() throws {
        let map = try PacketMap(packets: packets(), track: try track { try $0.scaleTimeRange(range("2", "3"), toDuration: s("4")) },
                                preferred: 15360)
        #expect(map.entries.count == 300 && map.exact)
        let ts = Double(map.timescale)
        var checked = 0
        for e in map.entries {
            let source = Double(e.index) / 30
            let expected = source < 2 ? source : source < 3 ? 2 + (source - 2) * 4 : source + 3
            #expect(abs(Double(e.pts) / ts - expected) < 1e-9, "packet \(e.index)")
            if (60..<90).contains(e.index) { #expect(Double(e.duration) / ts == 4.0 / 30); checked += 1 }
        }
        #expect(checked == 30)
        #expect(zip(map.entries, map.entries.dropFirst()).allSatisfy { $0.dts < $1.dts })
    }

    @Test func removedPacketsAreDroppedAndCounted() throws {
        let map = try PacketMap(packets: packets(), track: try track { try $0.removeTimeRange(range("4", "5")) }, preferred: 15360)
        #expect(map.dropped == 30 && map.entries.count == 270)
        #expect(!map.entries.contains { (120..<150).contains($0.index) })
        let after = try #require(map.entries.first { $0.index == 150 })
        #expect(after.pts * 30 == 120 * Int64(map.timescale), "the frame after the cut takes the cut's place")
    }

    @Test func aFixedTimescaleRoundsAndKeepsDecodeOrder() throws {
        // 1/7 speed over a 90 kHz grid cannot be exact at 1000 ticks a second.
        let map = try PacketMap(packets: packets(), track: try track { try $0.scaleTimeRange(range("1", "2"), toDuration: s("7")) },
                                preferred: 15360, fixedTimescale: 1000)
        #expect(map.timescale == 1000 && !map.exact)
        #expect(zip(map.entries, map.entries.dropFirst()).allSatisfy { $0.dts < $1.dts && $0.pts < $1.pts })
        #expect(map.entries.allSatisfy { $0.dts <= $0.pts && $0.duration >= 1 })
    }

    @Test func playingASourceTimeTwiceIsRefused() throws {
        let twice = try track { c in try c.insertTimeRange(range("1", "2"), of: movie(), at: s("5")) }
        #expect(throws: ExportError.self) { try PacketMap(packets: packets(), track: twice, preferred: 15360) }
    }
}
