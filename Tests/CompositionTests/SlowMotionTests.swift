import Composition
import Foundation
import Testing
import TestSupport

/// iPhone-style slow motion (issue 24, part 3): Photos' defaults, and the timeline it makes.
@Suite struct SlowMotionTests {
    @Test(arguments: [(240.0, "1/8"), (239.76, "1/8"), (210, "1/8"), (209.9, "1/4"), (120, "1/4"), (85, "1/4")])
    func photosRatesFollowTheFrameRate(fps: Double, rate: String) throws {
        #expect(SlowMotion.photosRate(framesPerSecond: fps) == r(rate))
        let defaults = try SlowMotion.photosDefault(duration: s("10"), framesPerSecond: fps)
        #expect(defaults.range == range("1.5", "8.5") && defaults.rate == r(rate) && defaults.rampLength == s("0.5"))
    }

    @Test(arguments: [60.0, 84.99, 30, 0])
    func belowEightyFiveFramesPerSecondIsNotAHighFrameRateClip(fps: Double) {
        #expect(SlowMotion.photosRate(framesPerSecond: fps) == nil)
        do {
            _ = try SlowMotion.photosDefault(duration: s("10"), framesPerSecond: fps)
            Issue.record("slow motion accepted \(fps) fps")
        } catch {
            guard case .notHighFrameRate(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("not a high-frame-rate clip"), "\(message)")
        }
    }

    /// Ramp in, slow middle, ramp out: exactly the two ramps' steps and one scaled range, rates
    /// falling monotonically to the slow rate and rising again, the length their exact sum.
    @Test(arguments: ["1/8", "1/4", "1/2"])
    func theTimelineIsTheRampsAndTheSlowMiddle(rate: String) throws {
        let slow = try SlowMotion(range: range("1.5", "8.5"), rate: r(rate))
        var c = try Composition(asset: movie())
        try Edit.slowMotion(slow).apply(to: &c)
        let (into, outOf) = try slow.ramps()
        #expect(into.range == range("1.5", "2") && outOf.range == range("8", "8.5"))
        #expect(into.steps == 8 && outOf.steps == 8)
        var expected = try Composition(asset: movie())
        try Edit.ramp(outOf).apply(to: &expected)
        try expected.scaleTimeRange(range("2", "8"), toDuration: s("6").multiplied(by: r(rate).reciprocal))
        try Edit.ramp(into).apply(to: &expected)
        #expect(c == expected)
        #expect(c.duration == (try s("3") + slow.duration()))
        let rates = c.tracks[0].segments.compactMap(\.rate)
        let slowest = try #require(rates.firstIndex(of: r(rate)))
        #expect(rates[...slowest].elementsEqual(rates[...slowest].sorted(by: >)), "falling into the slow section")
        #expect(rates[slowest...].elementsEqual(rates[slowest...].sorted()), "rising out of it")
        #expect(rates.first == .one && rates.last == .one)
        // One edit, recorded and read back as such.
        let edit = Edit.slowMotion(slow)
        #expect(try JSONDecoder().decode(Edit.self, from: JSONEncoder().encode(edit)) == edit)
    }

    @Test func shortRangesGetShorterRampsAndBadInputIsRefused() throws {
        #expect(try SlowMotion(range: range("1", "2"), rate: r("1/8")).rampLength == s("0.25"))
        #expect(throws: CompositionError.rateOutOfRange("slow motion plays slower than 1x; rate 2 is not (use `scale` to speed up)")) {
            try SlowMotion(range: range("1", "2"), rate: r("2"))
        }
        #expect(throws: CompositionError.self) { try SlowMotion(range: range("1", "2"), rate: r("1/64")) }
        #expect(throws: CompositionError.self) { try SlowMotion(range: range("1", "2"), rate: r("1/8"), rampLength: s("0.5")) }
    }
}
