import Composition
@testable import Export
import Foundation
import TestSupport
import Testing
import Media

/// The cut path of passthrough on its own: where runs of copied frames may end and resume
/// (CutPoints), and how the skipped source of a whole timeline becomes cuts (KeyframeSnapping).
@Suite struct KeyframeSnappingTests {
    func t(_ frame: Int) -> Time { Time(value: Int64(frame), timescale: 30) }

    /// 300 frames at 30 fps in presentation order, a keyframe every `gop` frames.
    func plain(gop: Int) -> CutPoints {
        CutPoints(decodeOrder: (0..<300).map(t), keyframe: (0..<300).map { $0 % gop == 0 }, end: .seconds(10))
    }

    func timeline(_ edits: (inout Composition) throws -> Void) throws -> [CompositionTrackSegment] {
        var c = try Composition(asset: movie())
        try edits(&c)
        return try #require(c.track(withID: 0)).segments
    }

    @Test func twoRemovalsInOneGOPBecomeOneCutAtTheNextKeyframe() throws {
        // The case: remove 2.5-4.2, then 2.6-2.7 of what is left (source 4.3-4.4).
        let segments = try timeline { c in
            try c.removeTimeRange(range("2.5", "4.2"))
            try c.removeTimeRange(range("2.6", "2.7"))
        }
        let (snapped, cuts) = try KeyframeSnapping.snap(segments, points: plain(gop: 30))
        #expect(snapped.compactMap(\.source) == [range("0", "2.5"), range("5", "10")])
        #expect(cuts.map(\.requested) == [range("2.5", "4.2"), range("4.3", "4.4")])
        #expect(cuts.allSatisfy { $0.actual == range("2.5", "5") })
    }

    @Test func aRunEndsBeforeBFramesThatNeedALaterFrame() {
        // Decode order I0 P3 B1 B2 P6 B4 B5 …: B1 and B2 need P3.
        var pts: [Int] = [0]
        for g in stride(from: 3, to: 300, by: 3) { pts += [g, g - 2, g - 1] }
        let points = CutPoints(decodeOrder: pts.map(t), keyframe: pts.map { $0 == 0 }, end: .seconds(10))
        var checked = 0
        for x in 1..<297 {
            let stop = points.stop(atOrBefore: t(x))
            // B(3k+1) and B(3k+2) can only be kept with P(3k+3): a run that would keep one of
            // them without it ends before B(3k+1).
            #expect(stop == (x % 3 == 1 ? t(x) : t(x - (x - 1) % 3)), "x = \(x)")
            checked += 1
        }
        #expect(checked == 296)
        #expect(points.stop(atOrBefore: Time(value: 1, timescale: 60)) == Time(value: 1, timescale: 60), "between frames 0 and 1")
    }

    @Test func anOpenGOPKeyframesLeadingPicturesAreNotKept() {
        // Decode order … P28, I30, B29, P33, B31, B32 …: B29 is shown before I30 but needs it.
        var pts = Array(0...28)
        pts += [30, 29]
        pts += Array(31..<300)
        let points = CutPoints(decodeOrder: pts.map(t), keyframe: pts.map { $0 == 0 || $0 == 30 }, end: .seconds(10))
        #expect(points.stop(atOrBefore: t(30)) == t(29), "a run ending at the keyframe would keep B29 without I30")
        #expect(points.resume(atOrAfter: t(25)) == t(30))
    }

    @Test func aLeadingRemovalResumesAtAKeyframeAndATrailingOneEndsWhereItMay() throws {
        let segments = try timeline { c in
            try c.removeTimeRange(range("8.5", "10"))
            try c.removeTimeRange(range("0", "1.1"))
        }
        let (snapped, cuts) = try KeyframeSnapping.snap(segments, points: plain(gop: 30))
        #expect(snapped.compactMap(\.source) == [range("2", "8.5")])
        #expect(cuts.map(\.actual) == [range("0", "2"), range("8.5", "10")])
    }

    @Test func aCutThatWouldLoseMoreThanItRemovesIsKept() throws {
        // Keyframes 8 s apart: removing 2-3 would have to resume at 8 and lose 5 s.
        let segments = try timeline { c in try c.removeTimeRange(range("2", "3")) }
        let (snapped, cuts) = try KeyframeSnapping.snap(segments, points: plain(gop: 240))
        #expect(snapped.compactMap(\.source) == [range("0", "3"), range("3", "10")], "the source plays on through 2-3")
        #expect(cuts == [KeyframeSnapping.Cut(requested: range("2", "3"), actual: nil)])
        #expect(snapped.last?.target.end == s("10"))
    }

    @Test func scaledPiecesKeepTheirRatesWhenTheyAreTrimmed() throws {
        let segments = try timeline { c in
            try c.scaleTimeRange(range("1", "3"), toDuration: s("8"))
            try c.removeTimeRange(range("3", "7"))
        }
        // Source 1.5-2.5 is removed from the quarter-speed section; the cut resumes at the
        // keyframe at 3 s.
        let (snapped, _) = try KeyframeSnapping.snap(segments, points: plain(gop: 30))
        #expect(snapped.compactMap(\.source) == [range("0", "1"), range("1", "1.5"), range("3", "10")])
        #expect(snapped.compactMap(\.rate) == [r("1"), r("1/4"), r("1")])
        #expect(snapped.last?.target.end == s("10"))
    }

    @Test func onlyTimelinesWithoutRemovalsAreLeftAlone() throws {
        func segment(_ a: Int64, _ b: Int64, at t: Int64, rate: Int64 = 1) throws -> CompositionTrackSegment {
            try CompositionTrackSegment(source: TimeRange(start: Time(value: a, timescale: 1), end: Time(value: b, timescale: 1)),
                                        target: TimeRange(start: Time(value: t, timescale: 1), duration: Time(value: (b - a) * rate, timescale: 1)))
        }
        let scaled = [try segment(0, 2, at: 0), try segment(2, 3, at: 2, rate: 4), try segment(3, 10, at: 6)]
        #expect(KeyframeSnapping.removesNothing(scaled))
        #expect(try KeyframeSnapping.snap(scaled, points: CutPoints(decodeOrder: (0..<300).map { Time(value: $0, timescale: 30) }, keyframe: (0..<300).map { $0 % 150 == 0 }, end: .seconds(10))).0 == scaled)
        let cut = [try segment(0, 2, at: 0), try segment(3, 10, at: 2)]
        #expect(!KeyframeSnapping.removesNothing(cut))
    }
}
