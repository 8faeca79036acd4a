import Composition
import Foundation
@testable import Project
@testable import Interchange
import Testing
import TestSupport

/// `OTIO.export(_:movie:to:)` writes the timeline a piece at a time, making each track's items
/// as it goes; what it writes must be, byte for byte, the whole tree serialized at once.
@Suite struct OTIOStreamingTests {
    /// Pieces written and the bytes they join to.
    static func streamed(_ composition: Composition) -> (pieces: Int, bytes: [UInt8]) {
        var pieces = 0
        var bytes: [UInt8] = []
        OTIO.export(composition, movie: otioMovie) { bytes += $0; pieces += 1 }
        return (pieces, bytes)
    }

    @Test func theDemoTimelineStreamsAsItSerializes() throws {
        let composition = try demoComposition()
        let (_, bytes) = Self.streamed(composition)
        #expect(bytes == OTIO.exportTree(composition, movie: otioMovie).serializedBytes())
        #expect(composition.tracks.count >= 2)
    }

    /// 2000 cuts, a reversal and a freeze on both tracks: megabytes of text, in several pieces.
    @Test func aLongTimelineStreamsInPiecesAsItSerializes() throws {
        var composition = try Composition(asset: movie())
        var g = SplitMix64(state: 40)
        for _ in 0..<2000 {
            let start = randomTime(upTo: try composition.duration - .seconds(1), &g)
            try? Edit.remove(range: TimeRange(start: start, duration: try Time(seconds: r("1/1000")))).apply(to: &composition)
        }
        try Edit.reverse(range: range("1", "2")).apply(to: &composition)
        try Edit.freeze(range: range("3", "4")).apply(to: &composition)
        let (pieces, bytes) = Self.streamed(composition)
        #expect(composition.tracks.allSatisfy { $0.segments.count > 1000 }, "\(composition.tracks.map(\.segments.count))")
        #expect(pieces > 1, "\(bytes.count) bytes in \(pieces) piece(s)")
        #expect(bytes == OTIO.exportTree(composition, movie: otioMovie).serializedBytes())
    }

    @Test func anEmptyTrackStreamsAsItSerializes() throws {
        var composition = try Composition(asset: movie())
        try Edit.remove(range: range("0", "9.5")).apply(to: &composition)
        let (_, bytes) = Self.streamed(composition)
        #expect(bytes == OTIO.exportTree(composition, movie: otioMovie).serializedBytes())
    }
}
