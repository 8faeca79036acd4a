import Composition
import Foundation
import Testing
import TestSupport

/// `Ramp` (issue 24, part 1): a speed ramp as constant-rate steps with exact boundaries.
@Suite struct RampTests {
    /// Every ramp of the grid below: ranges (start, length) within the 10 s test movie and
    /// ordered pairs of distinct rates, both eases.
    static let starts = ["0", "1.5", "3.2", "1001/3000"]
    static let lengths = ["0.1", "1/3", "0.5", "2", "4.8"]
    static let rates = ["1/32", "0.1", "0.25", "0.5", "1", "2", "4", "32"]

    static func grid() -> [(TimeRange, Rational, Rational, RampEase)] {
        var cases: [(TimeRange, Rational, Rational, RampEase)] = []
        for start in starts {
            for length in lengths {
                let range = try! TimeRange(start: s(start), duration: s(length))
                for from in rates {
                    for to in rates where to != from {
                        for ease in RampEase.allCases { cases.append((range, r(from), r(to), ease)) }
                    }
                }
            }
        }
        return cases
    }

    /// What a ramp on an unedited movie must give, built step by step from source ranges and
    /// rates (not by `scaleTimeRange`): the steps as mappings, and the whole track with
    /// neighbours of equal rate over contiguous source merged.
    static func expectedLayout(movieLength: Time, _ ramp: Ramp) throws -> (steps: [TimeMapping], merged: [TimeMapping]) {
        var steps: [TimeMapping] = []
        var t = ramp.range.start
        for (source, factor) in zip(try ramp.stepRanges(), try ramp.stepFactors()) {
            let length = try source.duration.multiplied(by: factor)
            steps.append(TimeMapping(source: source, target: try TimeRange(start: t, duration: length)))
            t = try t + length
        }
        var all: [TimeMapping] = []
        if ramp.range.start > .zero {
            all.append(TimeMapping(source: try TimeRange(start: .zero, end: ramp.range.start), target: try TimeRange(start: .zero, end: ramp.range.start)))
        }
        all += steps
        if ramp.range.end < movieLength {
            let rest = try TimeRange(start: ramp.range.end, end: movieLength)
            all.append(TimeMapping(source: rest, target: try TimeRange(start: t, duration: rest.duration)))
        }
        var merged: [TimeMapping] = []
        for m in all {
            if let last = merged.last, let a = last.source, let b = m.source, a.end == b.start,
               try a.duration.ratio(to: last.target.duration) == b.duration.ratio(to: m.target.duration) {
                merged[merged.count - 1] = TimeMapping(source: try TimeRange(start: a.start, end: b.end),
                                                       target: try TimeRange(start: last.target.start, end: m.target.end))
            } else {
                merged.append(m)
            }
        }
        return (steps, merged)
    }

    @Test func theIssuesExample() throws {
        var c = try Composition(asset: movie())
        let ramp = try Ramp(range: range("2", "4"), from: r("1"), to: r("0.25"))
        #expect(ramp.steps == 30)
        try Edit.ramp(ramp).apply(to: &c)
        let length = try ramp.duration()
        // (2/0.75)·ln 4 = 3.69678 s continuous; the steps: 2839/768 = 3.69661 s.
        #expect(length == s("2839/768"))
        #expect(abs(length.seconds - 2 / 0.75 * log(4.0)) < 0.0002)
        #expect(c.duration == (try s("8") + length))
    }

    /// Over the grid: the ramp's length is exactly the sum of its steps and the timeline's
    /// change; the steps tile the source range exactly; the rates are monotone from `from` to
    /// `to`; and the length is within L/2048 of the continuous ramp's (plus 1e-9 relative for
    /// the smooth reference integral).
    @Test func durationsAreExactAndCloseToTheContinuousRamp() throws {
        var cases = 0, worstAbsolute = 0.0, worstRelative = 0.0, worstPerSecond = 0.0
        for (range, from, to, ease) in Self.grid() {
            let before = try Composition(asset: movie())
            var c = before
            let ramp = try Ramp(range: range, from: from, to: to, ease: ease)
            try Edit.ramp(ramp).apply(to: &c)
            let length = try ramp.duration()
            let end = try range.start + length
            #expect(c.duration == (try before.duration - range.duration + length), "\(range) \(from)→\(to)")
            // The whole track, independently: 1x before, the steps, 1x after, where steps of
            // equal rate (and a step at 1x next to the untouched media) are one segment.
            let expected = try Self.expectedLayout(movieLength: s("10"), ramp)
            var sum = Time.zero
            for step in expected.steps { sum = try sum + step.target.duration }
            #expect(sum == length)
            for track in c.tracks {
                #expect(track.segments.map(\.timeMapping) == expected.merged, "\(range) \(from)→\(to) \(ease)")
            }
            let rates = try ramp.stepRates()
            let monotone = from > to ? zip(rates, rates.dropFirst()).allSatisfy { $0 >= $1 }
                                     : zip(rates, rates.dropFirst()).allSatisfy { $0 <= $1 }
            #expect(monotone, "\(range) \(from)→\(to) \(ease): \(rates.map(\.readable))")
            #expect(rates.allSatisfy { $0 >= PlaybackRate.minimum && $0 <= PlaybackRate.maximum })
            let continuous = ramp.continuousSeconds()
            let error = abs(length.seconds - continuous)
            let bound = range.duration.seconds / 2048 + (ease == .smooth ? 1e-9 * continuous : 0)
            #expect(error <= bound, "\(range) \(from)→\(to) \(ease): \(length.seconds) against \(continuous)")
            worstAbsolute = max(worstAbsolute, error)
            worstRelative = max(worstRelative, error / continuous)
            worstPerSecond = max(worstPerSecond, error / range.duration.seconds)
            cases += 1
        }
        #expect(cases >= 2000, "\(cases) cases")
        print("ramp grid: \(cases) cases; worst |steps − continuous| \(worstAbsolute) s, \(worstRelative) relative, \(worstPerSecond) s per source second (bound 1/2048 = \(1.0 / 2048))")
    }

    @Test(arguments: [("1", "0.25"), ("0.25", "1"), ("1", "4"), ("1/32", "32"), ("2", "0.5")])
    func ratesAreMonotoneAndEndNearTheirEnds(from: String, to: String) throws {
        for ease in RampEase.allCases {
            let ramp = try Ramp(range: range("1", "5"), from: r(from), to: r(to), ease: ease)
            let rates = try ramp.stepRates().map(\.doubleValue)
            #expect(rates.count == 60)
            let down = r(from) > r(to)
            #expect(zip(rates, rates.dropFirst()).allSatisfy { down ? $0 >= $1 : $0 <= $1 })
            // The first and last steps are close to the end rates (within the step's own change).
            let lo = min(r(from).doubleValue, r(to).doubleValue), hi = max(r(from).doubleValue, r(to).doubleValue)
            #expect(rates.allSatisfy { $0 >= lo * 0.999 && $0 <= hi * 1.001 })
        }
    }

    @Test func smoothEasesInAndOut() throws {
        let linear = try Ramp(range: range("0", "4"), from: r("1"), to: r("0.25")).stepRates().map(\.doubleValue)
        let smooth = try Ramp(range: range("0", "4"), from: r("1"), to: r("0.25"), ease: .smooth).stepRates().map(\.doubleValue)
        // Smooth changes less than linear in the first and last steps, more in the middle.
        #expect(1 - smooth[0] < 1 - linear[0])
        #expect(smooth[59] - 0.25 < linear[59] - 0.25)
        #expect(abs(smooth[29] - smooth[30]) > abs(linear[29] - linear[30]))
    }

    @Test func defaultStepsAreAtMostAFifteenthOfASecondAndAtLeastFour() throws {
        #expect(try Ramp.defaultSteps(for: s("2")) == 30)
        #expect(try Ramp.defaultSteps(for: s("2.01")) == 31)
        #expect(try Ramp.defaultSteps(for: s("0.1")) == 4)
        #expect(try Ramp.defaultSteps(for: s("1001/30000")) == 4)
        #expect(try Ramp(range: range("0", "1"), from: r("1"), to: r("2"), steps: 7).steps == 7)
    }

    @Test func aRampOnAScaledRangeMultipliesTheRates() throws {
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("2", "4"), toDuration: s("4"))       // 2-4 at 1/2, now 2-6
        let ramp = try Ramp(range: range("2", "6"), from: r("1"), to: r("0.5"), steps: 8)
        try Edit.ramp(ramp).apply(to: &c)
        let rates = try c.tracks[0].segments.dropFirst().prefix(8).map { try #require($0.rate) }
        #expect(rates == (try ramp.stepRates().map { try $0 * r("1/2") }))
    }

    @Test func aRampAcrossACutAndTheEndOfTheTimeline() throws {
        var c = try Composition(asset: movie())
        try c.removeTimeRange(range("3", "4"))                          // 0-3, 4-10 now 3-9
        try Edit.ramp(try Ramp(range: range("2", "9"), from: r("1"), to: r("1/4"))).apply(to: &c)
        for track in c.tracks {
            let sources = track.segments.compactMap(\.source)
            #expect(sources.first?.start == .zero && sources.last?.end == .seconds(10))
            #expect(track.segments.count == 1 + 105)                      // 0-2, then 105 steps; 3 is a step boundary
        }
    }

    @Test func badInputIsRefusedWithAClearMessage() throws {
        #expect(throws: CompositionError.rateOutOfRange("--from 0.01 is outside the supported 0.03125 to 32")) {
            try Ramp(range: range("2", "4"), from: r("0.01"), to: r("1"))
        }
        #expect(throws: CompositionError.rateOutOfRange("--to 0 is outside the supported 0.03125 to 32")) {
            try Ramp(range: range("2", "4"), from: r("1"), to: r("0"))
        }
        #expect(throws: CompositionError.invalidRange("range 2-2 is empty; a ramp needs a range that ends after it starts")) {
            try Ramp(range: range("2", "2"), from: r("1"), to: r("0.5"))
        }
        #expect(throws: CompositionError.invalidRange("a ramp has 1 to 10000 steps, not 0")) {
            try Ramp(range: range("2", "4"), from: r("1"), to: r("0.5"), steps: 0)
        }
        // Beyond the end: the composition is unchanged.
        let before = try Composition(asset: movie())
        var c = before
        #expect(throws: CompositionError.self) {
            try Edit.ramp(try Ramp(range: range("8", "12"), from: r("1"), to: r("0.5"))).apply(to: &c)
        }
        #expect(c == before)
    }

    @Test func aRampIsOneEditThatRoundTripsThroughJSON() throws {
        let edit = Edit.ramp(try Ramp(range: range("2", "4"), from: r("1"), to: r("0.25"), ease: .smooth, steps: 24))
        let data = try JSONEncoder().encode(edit)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"op\":\"ramp\"") && text.contains("\"ease\":\"smooth\"") && text.contains("\"steps\":24"))
        #expect(try JSONDecoder().decode(Edit.self, from: data) == edit)
        #expect(edit.summary == "ramp 2-4 to 3.974 s (1x to 0.25x, smooth, 24 steps)")
    }
}
