import Composition
import Foundation
@testable import Preview
import Testing

/// The timeline strip's layout (issue 54): pure geometry, checked without SDL.
@Suite struct TimelineStripTests {
    static func t(_ seconds: Double) -> Time { Time(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func range(_ a: Double, _ b: Double) throws -> TimeRange { try TimeRange(start: t(a), end: t(b)) }
    static func media(_ source: (Double, Double), _ target: (Double, Double), reversed: Bool = false) throws -> CompositionTrackSegment {
        try CompositionTrackSegment(source: try range(source.0, source.1), target: try range(target.0, target.1), reversed: reversed)
    }

    /// 0-2 1x, 2-10 at 1/4 (source 2-4), 10-12 reversed 1x, 12-13 a hold, 13-14 a gap, 14-16 2x.
    static func mixed() throws -> [CompositionTrackSegment] {
        [try media((0, 2), (0, 2)), try media((2, 4), (2, 10)), try media((4, 6), (10, 12), reversed: true),
         try CompositionTrackSegment(holding: t(6), target: try range(12, 13)),
         try CompositionTrackSegment(emptyTarget: try range(13, 14)), try media((6, 10), (14, 16))]
    }

    @Test(arguments: [160, 333, 640, 1920])
    func piecesSitWhereTheirSegmentsPlay(_ width: Int) throws {
        let segments = try Self.mixed()
        let strip = TimelineStrip(segments: segments, duration: Self.t(16), width: width, height: 28)
        #expect(strip.pieces.map(\.kind) == [.normal, .slow, .reversed, .hold, .gap, .fast])
        var checked = 0
        for piece in strip.pieces {
            let target = segments[piece.segment].target
            let left = Int((target.start.seconds / 16 * Double(width)).rounded())
            let right = Int((target.end.seconds / 16 * Double(width)).rounded())
            #expect(piece.rect.x == left && piece.rect.x + piece.rect.width == right, "\(piece) at width \(width)")
            // Bars stand on the strip's bottom.
            #expect(piece.rect.y + piece.rect.height == 28)
            checked += 1
        }
        #expect(checked == 6)
        // Heights on info's log scale from 1/4 (a quarter of the strip) to 2 (all of it): 1x at 2/3.
        let height = Dictionary(strip.pieces.map { ($0.kind, $0.rect.height) }) { a, _ in a }
        #expect(height[.slow] == 7 && height[.fast] == 28 && height[.normal] == 7 + 14, "\(height)")
        #expect(height[.hold] == 28 && height[.gap] == 28)
        // Direction marks only inside the reversed piece.
        let reversed = try #require(strip.pieces.first { $0.kind == .reversed }).rect
        #expect(!strip.arrows.isEmpty)
        for arrow in strip.arrows {
            #expect(arrow.x >= reversed.x && arrow.x + arrow.width <= reversed.x + reversed.width
                    && arrow.y >= reversed.y && arrow.y + arrow.height <= 28, "\(arrow) outside \(reversed)")
        }
    }

    /// A click at x% of the strip is x% of the timeline, and the playhead at a time is at its column.
    @Test(arguments: [97, 640, 1280])
    func columnsAndTimesAgree(_ width: Int) throws {
        let duration = Self.t(29.0 / 3)
        let strip = TimelineStrip(segments: [try Self.media((0, 29.0 / 3), (0, 29.0 / 3))], duration: duration, width: width, height: 24)
        var checked = 0
        for percent in stride(from: 0, through: 100, by: 5) {
            let x = width * percent / 100
            let t = strip.time(atX: x)
            #expect(abs(t.seconds - Double(x) / Double(width) * duration.seconds) < 1.0 / 48000 + 1e-9)
            #expect(abs(strip.x(at: t) - x) <= 1)
            let head = strip.playhead(at: t)
            #expect(head.x <= x && x <= head.x + head.width && head.height == 24)
            checked += 1
        }
        #expect(checked == 21)
        #expect(strip.time(atX: -5) == .zero && strip.time(atX: width + 5) == duration)
    }

    /// A long ramp's hundreds of steps: the pieces tile the strip, none overlaps, none is empty.
    @Test func manyNarrowSegmentsTileTheStrip() throws {
        var segments: [CompositionTrackSegment] = []
        var target = 0.0
        for i in 0..<1000 {
            let length = 0.01 * Double(1 + i % 7)
            segments.append(try Self.media((Double(i), Double(i) + 0.01), (target, target + length)))
            target += length
        }
        let strip = TimelineStrip(segments: segments, duration: Self.t(target), width: 300, height: 28)
        var end = 0
        for piece in strip.pieces {
            #expect(piece.rect.x == end && piece.rect.width > 0)
            end = piece.rect.x + piece.rect.width
        }
        #expect(end == 300 && strip.pieces.count > 100 && strip.pieces.count <= 300)
    }

    @Test func marksSpanTheRangeInEitherOrder() throws {
        let strip = TimelineStrip(segments: [try Self.media((0, 10), (0, 10))], duration: Self.t(10), width: 200, height: 24)
        let marks = strip.marks(in: Self.t(7), out: Self.t(2))
        #expect(marks.range == TimelineStrip.Rect(x: 40, y: 0, width: 100, height: 24))
        #expect(marks.lines.map(\.x) == [140, 40])
        #expect(strip.marks(in: Self.t(2), out: nil).range == nil && strip.marks(in: Self.t(2), out: nil).lines.count == 1)
    }

    @Test func theTextStripShowsTheSameTimeline() throws {
        let text = TimelineStrip.text(segments: try Self.mixed(), duration: Self.t(16), columns: 16, time: Self.t(1.2),
                                      markIn: Self.t(4), markOut: Self.t(6))
        #expect(text == "0 ▆|▂▂[▂]▂▂▂◀◀=·██ 16 s", "\(text)")
    }

    @Test func theSpeedScaleIsInfosLogScale() throws {
        let scale = try #require(SpeedScale(segments: try Self.mixed()))
        let quarter = try Rational(1, 4), two = try Rational(2)
        #expect(scale.slowest == quarter && scale.fastest == two)
        #expect(abs(scale.level(of: .one) - 2.0 / 3) < 1e-12)
        #expect(SpeedScale(segments: [try CompositionTrackSegment(emptyTarget: try Self.range(0, 1))]) == nil)
    }
}
