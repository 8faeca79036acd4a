import Composition
import Testing
import TestSupport

@Suite struct CompositionEditTests {
    @Test func theSlowpokeDemoEdit() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("3.2", "5.0"), toDuration: s("7.2"))
        #expect(c.duration == s("15.4"))
        for track in c.tracks {
            #expect(describe(track) == ["0-3.2 <- 0-3.2 @1", "3.2-10.4 <- 3.2-5 @1/4", "10.4-15.4 <- 5-10 @1"])
        }
    }

    @Test func scalingAScaledRangeMultipliesTheRates() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("2", "4"), toDuration: s("4"))        // 2-4 at 1/2, now 2-6
        try c.scaleTimeRange(range("2", "6"), toDuration: s("8"))        // again: 1/4, now 2-10
        #expect(describe(c.tracks[0]) == ["0-2 <- 0-2 @1", "2-10 <- 2-4 @1/4", "10-16 <- 4-10 @1"])
    }

    @Test func aRangeAcrossSegmentsSplitsThem() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("2", "4"), toDuration: s("8"))        // 2-4 @1/4 over 2-10
        try c.scaleTimeRange(range("6", "12"), toDuration: s("3"))       // half of the slow part, and 2 s after it, 2x
        #expect(describe(c.tracks[0]) == [
            "0-2 <- 0-2 @1", "2-6 <- 2-3 @1/4", "6-8 <- 3-4 @1/2", "8-9 <- 4-6 @2", "9-13 <- 6-10 @1",
        ])
        #expect(c.duration == .seconds(13))
    }

    @Test func removeMovesLaterContentEarlier() throws {
        var c = try Composition(asset: movie())
        try c.removeTimeRange(range("1", "3"))
        #expect(describe(c.tracks[1]) == ["0-1 <- 0-1 @1", "1-8 <- 3-10 @1"])
        #expect(c.duration == .seconds(8))
    }

    @Test func removingEverythingKeepsTheTracks() throws {
        var c = try Composition(asset: movie())
        try c.removeTimeRange(range("0", "10"))
        #expect(c.tracks.count == 2)
        #expect(c.tracks.allSatisfy { $0.segments.isEmpty })
        #expect(c.duration == .zero)
    }

    @Test func insertEmptyMovesLaterContentLater() throws {
        var c = try Composition(asset: movie())
        try c.insertEmptyTimeRange(range("4", "6"))
        #expect(describe(c.tracks[0]) == ["0-4 <- 0-4 @1", "4-6 <- gap", "6-12 <- 4-10 @1"])
        let gap = try #require(try c.tracks[0].presentation(at: s("5")))
        #expect(gap.sourceTime == nil && gap.rate == nil)
    }

    @Test func adjacentGapsMerge() throws {
        var c = try Composition(asset: movie())
        try c.insertEmptyTimeRange(range("4", "5"))
        try c.insertEmptyTimeRange(range("5", "6"))
        #expect(describe(c.tracks[0]) == ["0-4 <- 0-4 @1", "4-6 <- gap", "6-12 <- 4-10 @1"])
    }

    @Test func insertTimeRangePlaysAtNaturalRate() throws {
        var c = try Composition(asset: movie())
        try c.insertTimeRange(range("8", "9"), of: movie(), at: s("2"))  // an instant replay
        #expect(describe(c.tracks[0]) == ["0-2 <- 0-2 @1", "2-3 <- 8-9 @1", "3-11 <- 2-10 @1"])
        // Source time 8.5 now plays twice.
        #expect(try c.tracks[0].compositionTimes(forSourceTime: s("8.5")) == [s("2.5"), s("9.5")])
    }

    @Test func insertingAtTheEndAppends() throws {
        var c = try Composition(asset: movie())
        try c.insertTimeRange(range("0", "1"), of: movie(), at: c.duration)
        #expect(describe(c.tracks[0]) == ["0-10 <- 0-10 @1", "10-11 <- 0-1 @1"])
        #expect(throws: CompositionError.self) { try c.insertTimeRange(range("0", "1"), of: movie(), at: s("20")) }
        #expect(throws: CompositionError.self) { try c.insertTimeRange(range("5", "11"), of: movie(), at: .zero) }
    }

    @Test func trackLevelEditsTouchOneTrack() throws {
        var c = try Composition(asset: movie())
        try c.editTrack(1) { (track: inout CompositionTrack) throws(CompositionError) in
            try track.scaleTimeRange(range("0", "1"), toDuration: s("2"))
        }
        #expect(c.tracks[0].duration == .seconds(10))
        #expect(c.tracks[1].duration == .seconds(11))
        #expect(c.duration == .seconds(11))
        // A composition-level edit beyond the shorter track's end clamps to it.
        try c.scaleTimeRange(range("9", "11"), toDuration: s("1"))
        #expect(c.tracks[0].duration == s("9.5"))
        #expect(c.tracks[1].duration == .seconds(10))
    }

    @Test func editsThatFailChangeNothing() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("1", "2"), toDuration: s("4"))
        let before = c
        #expect(throws: CompositionError.self) { try c.scaleTimeRange(range("1", "20"), toDuration: s("4")) }
        #expect(throws: CompositionError.self) { try c.scaleTimeRange(range("1", "2"), toDuration: .zero) }
        #expect(throws: CompositionError.self) { try c.removeTimeRange(range("3", "3")) }
        #expect(c == before)
    }

    /// An edit whose result is refused after it was made in place (a rate beyond 1/32x, here on
    /// both tracks, of different lengths) is taken back on every track, segment for segment.
    @Test func anEditRefusedAfterItsWorkIsTakenBackOnEveryTrack() throws {
        var c = try Composition(asset: movie())
        try Edit.scale(range: range("1", "2"), toDuration: s("4")).apply(to: &c)   // 1/4, now 1-5
        try Edit.scale(range: range("8", "9"), toDuration: s("2")).apply(to: &c)   // 1/2
        let before = c
        #expect(c.tracks.count == 2 && c.tracks.allSatisfy { $0.segments.count >= 4 })
        // 1-6 at a tenth: the quarter-speed part would play at 1/40x.
        #expect(throws: CompositionError.self) { try Edit.scale(range: range("1", "6"), toDuration: s("50")).apply(to: &c) }
        #expect(c == before)
    }

    @Test func answersWhatPlaysWhere() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("3.2", "5"), toDuration: s("7.2"))
        let video = c.tracks[0]
        // Composition time -> source time and rate.
        let cases: [(String, String, String)] = [
            ("0", "0", "1"), ("3.2", "3.2", "1/4"), ("4", "3.4", "1/4"), ("10.399", "4.99975", "1/4"),
            ("10.4", "5", "1"), ("15.3", "9.9", "1"),
        ]
        for (t, source, rate) in cases {
            let p = try #require(try video.presentation(at: s(t)))
            #expect(p.sourceTime == s(source), "at \(t)")
            #expect(p.rate == r(rate), "at \(t)")
        }
        #expect(try video.presentation(at: s("15.4")) == nil)
        // Source time -> composition time, exactly: frame 200 of 60 fps (3.333… s) is in the slow part.
        #expect(try video.compositionTimes(forSourceTime: s("200/60")) == [try s("3.2") + s("2/15").multiplied(by: r("4"))])
        #expect(try video.compositionTimes(forSourceTime: s("5")) == [s("10.4")])
        try c.removeTimeRange(range("0", "1"))
        #expect(try c.tracks[0].compositionTimes(forSourceTime: s("0.5")) == [])
    }

    @Test func exactSplitsAtAwkwardRates() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("1", "2"), toDuration: s("3"))        // 1/3x
        try c.scaleTimeRange(range("2", "3"), toDuration: s("1/7"))      // a third of that, 7x faster
        let segment = c.tracks[0].segments[2]
        #expect(segment.rate == r("7/3"))
        #expect(segment.source == range("4/3", "5/3"))
        var total = Time.zero
        for segment in c.tracks[0].segments { total = try total + segment.target.duration }
        #expect(total == c.duration)
    }
}
