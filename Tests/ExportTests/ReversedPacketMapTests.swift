import Composition
@testable import Export
import Foundation
import TestSupport
import Testing
import Media

/// PacketMap and SmartCut's runs on a reversed range, on their own: a 10 s, 30 fps stream with
/// no reordering (packet i at i/30 s), source 2-4 reversed.
@Suite struct ReversedPacketMapTests {
    let packets = (0..<300).map { i in
        PacketMap.SourcePacket(pts: Time(value: Int64(i), timescale: 30), duration: Time(value: 1, timescale: 30))
    }

    func track(_ edit: (inout Composition) throws -> Void) throws -> CompositionTrack {
        var c = try Composition(asset: movie())
        try edit(&c)
        return try #require(c.track(withID: 0))
    }

    /// Source frame 60 + j plays at 4 - (j + 1)/30 for 1/30 s; in reversed order the mapped
    /// times increase and decode times follow them.
    @Test(arguments: [(1, 1), (1, 2), (2, 1)]) func aReversedRangePlaysItsFramesLastFirst(rate: (Int64, Int64)) throws {
        let speed = try Rational(rate.0, rate.1)
        let track = try track {
            try $0.reverseTimeRange(range("2", "4"))
            if rate.0 != rate.1 { try $0.scaleTimeRange(range("2", "4"), toDuration: Time.seconds(2).multiplied(by: speed.reciprocal)) }
        }
        // In the order the timeline plays them, as SmartCut gives them.
        let order = Array(0..<60) + Array((60..<120).reversed()) + Array(120..<300)
        let map = try PacketMap(packets: order.map { packets[$0] }, track: track, preferred: 15360)
        #expect(map.entries.count == 300 && map.exact)
        let ts = Double(map.timescale), stretch = try speed.reciprocal.doubleValue
        var checked = 0
        for (k, e) in map.entries.enumerated() {
            let i = order[e.index]
            let (start, duration): (Double, Double)
            if i < 60 { (start, duration) = (Double(i) / 30, 1.0 / 30) }
            else if i < 120 { (start, duration) = (2 + Double(119 - i) / 30 * stretch, stretch / 30) }
            else { (start, duration) = (Double(i) / 30 + 2 * stretch - 2, 1.0 / 30) }
            #expect(abs(Double(e.pts) / ts - start) < 1e-9 && abs(Double(e.duration) / ts - duration) < 1e-9, "output frame \(k), source \(i)")
            checked += 1
        }
        #expect(zip(map.entries, map.entries.dropFirst()).allSatisfy { $0.pts < $1.pts && $0.dts < $1.dts })
        #expect(checked == 300)
    }

    /// Runs in timeline order: forwards, the reversed range, forwards; a reversed range split
    /// by a speed change is one run.
    @Test func runsFollowTheTimeline() throws {
        let times = packets.map(\.pts)
        let reversed = try track { try $0.reverseTimeRange(range("2", "4")) }
        #expect(PlayedRun.runs(times: times, segments: reversed.segments)
                == [PlayedRun(ranks: 0..<60, reversed: false), PlayedRun(ranks: 60..<120, reversed: true), PlayedRun(ranks: 120..<300, reversed: false)])
        let split = try track {
            try $0.reverseTimeRange(range("2", "4"))
            try $0.scaleTimeRange(range("3", "4"), toDuration: Time.seconds(2))
        }
        #expect(split.segments.filter(\.isReversed).count == 2)
        #expect(PlayedRun.runs(times: times, segments: split.segments)
                == [PlayedRun(ranks: 0..<60, reversed: false), PlayedRun(ranks: 60..<120, reversed: true), PlayedRun(ranks: 120..<300, reversed: false)])
        let untouched = try track { _ in }
        #expect(PlayedRun.runs(times: times, segments: untouched.segments) == [PlayedRun(ranks: 0..<300, reversed: false)])
    }
}
