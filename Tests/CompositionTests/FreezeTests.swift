import Composition
import Foundation
import Testing
import TestSupport

/// A track's segments as text, holds included: "2-3.5 <- hold 2".
private func layout(_ track: CompositionTrack) -> [String] {
    track.segments.map { segment in
        if let held = segment.heldTime { return "\(segment.target) <- hold \(held.secondsText)" }
        let source = segment.source.map { "\($0)" } ?? "gap"
        return "\(segment.target) <- \(source)" + (segment.rate.map { " @\($0)" } ?? "")
    }
}

/// Freeze frames (issue 24, part 2): a hold is a segment of its own, not a rate.
@Suite struct FreezeTests {
    @Test func aFreezeHoldsTheFrameAtItsTimeOnVideoAndIsSilentOnAudio() throws {
        var c = try Composition(asset: movie())
        try Edit.freeze(range: range("2", "3.5")).apply(to: &c)
        #expect(layout(c.tracks[0]) == ["0-2 <- 0-2 @1", "2-3.5 <- hold 2", "3.5-11.5 <- 2-10 @1"])
        #expect(layout(c.tracks[1]) == ["0-2 <- 0-2 @1", "2-3.5 <- gap", "3.5-11.5 <- 2-10 @1"])
        #expect(c.duration == s("11.5"))
        // On screen through the hold: the held time; no rate.
        for t in ["2", "2.75", "3.4999"] {
            let p = try #require(try c.tracks[0].presentation(at: s(t)))
            #expect(p.sourceTime == s("2") && p.rate == nil && p.segment.isHold && !p.segment.isEmpty)
        }
        #expect(try c.tracks[1].presentation(at: s("2.5"))?.sourceTime == nil)
    }

    /// In a scaled stretch the held time is the source on screen there; a freeze inside a hold
    /// lengthens it; scaling over a hold scales its length; a freeze of an hour is fine.
    @Test func holdsFollowTheTimelineTheyAreIn() throws {
        var c = try Composition(asset: movie())
        try Edit.scale(range: range("2", "4"), rate: r("1/4")).apply(to: &c)  // 2-10 plays 2-4
        try Edit.freeze(range: range("6", "7")).apply(to: &c)                  // source 3
        #expect(layout(c.tracks[0]) == ["0-2 <- 0-2 @1", "2-6 <- 2-3 @1/4", "6-7 <- hold 3", "7-11 <- 3-4 @1/4", "11-17 <- 4-10 @1"])
        try Edit.freeze(range: range("6.5", "7")).apply(to: &c)
        #expect(layout(c.tracks[0])[2] == "6-7.5 <- hold 3")
        try Edit.scale(range: range("6", "7.5"), toDuration: s("30")).apply(to: &c)
        #expect(layout(c.tracks[0])[2] == "6-36 <- hold 3")
        // Removing part of a hold shortens it.
        try Edit.remove(range: range("6", "35")).apply(to: &c)
        #expect(layout(c.tracks[0])[2] == "6-7 <- hold 3")
        // A freeze of an hour: no rate, so no 1/32 limit.
        try Edit.freeze(range: range("0", "3600")).apply(to: &c)
        #expect(layout(c.tracks[0])[0] == "0-3600 <- hold 0")
    }

    @Test func freezesThatHoldNothingAreRefused() throws {
        var c = try Composition(asset: movie())
        try Edit.insertGap(range: range("5", "6")).apply(to: &c)
        let before = c
        #expect(throws: CompositionError.beyondTimeline("the timeline has a gap at 5.5 s, so there is no frame to hold there")) {
            try Edit.freeze(range: range("5.5", "6")).apply(to: &c)
        }
        #expect(throws: CompositionError.beyondTimeline("cannot freeze at 11 s: the timeline runs from 0 to 11 s, and a freeze holds a frame shown before the end")) {
            try Edit.freeze(range: range("11", "12")).apply(to: &c)
        }
        #expect(c == before)
        var audioOnly = try Composition(asset: Asset(tracks: [.init(trackID: 0, mediaType: .audio, timeRange: range("0", "10"))]))
        #expect(throws: CompositionError.noSuchTrack("the timeline has no video track, so there is no frame to hold")) {
            try Edit.freeze(range: range("1", "2")).apply(to: &audioOnly)
        }
    }

    /// A hold is written as `hold` (the held time), read back equal, and the edit too.
    @Test func holdsAndFreezeEditsRoundTripThroughJSON() throws {
        var c = try Composition(asset: movie())
        try Edit.freeze(range: range("1001/3000", "2")).apply(to: &c)
        let data = try JSONEncoder().encode(c)
        #expect(String(decoding: data, as: UTF8.self).contains("\"hold\":\"1001\\/3000\""))
        #expect(try JSONDecoder().decode(Composition.self, from: data) == c)
        let edit = Edit.freeze(range: range("2", "3.5"))
        #expect(try JSONDecoder().decode(Edit.self, from: JSONEncoder().encode(edit)) == edit)
        #expect(edit.summary == "freeze the frame at 2 s for 1.5 s")
        // A segment that claims both a source and a hold is refused.
        let both = #"{"target":{"start":"0","duration":"1"},"source":{"start":"0","duration":"1"},"hold":"0"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CompositionTrackSegment.self, from: Data(both.utf8)) }
    }

    /// Subtitle cues and chapters across a hold: one on screen at the held time stays on
    /// screen through the hold; one that ends at it ends where the hold starts.
    @Test func cuesOnScreenAtTheHeldTimeStayThroughTheHold() throws {
        var c = try Composition(asset: movie())
        try Edit.freeze(range: range("2", "3.5")).apply(to: &c)
        let segments = c.tracks[0].segments
        #expect(SourceMapping.compositionRanges(of: range("1", "3"), in: segments) == [range("1", "4.5")])
        #expect(SourceMapping.compositionRanges(of: range("1", "2"), in: segments) == [range("1", "2")])
        #expect(SourceMapping.compositionRanges(of: range("2", "2.5"), in: segments) == [range("2", "4")])
        #expect(SourceMapping.compositionTime(atOrAfter: s("2"), in: segments) == s("2"))
        #expect(SourceMapping.compositionTime(atOrAfter: s("2.5"), in: segments) == s("4"))
    }
}
