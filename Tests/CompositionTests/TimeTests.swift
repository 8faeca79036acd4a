import Composition
import Testing
import TestSupport

@Suite struct RationalTests {
    @Test(arguments: [
        ("0.25", 1, 4), ("1/4", 1, 4), ("4", 4, 1), (".5", 1, 2), ("3.2", 16, 5), ("5.0", 5, 1),
        ("30000/1001", 30000, 1001), ("-2.5", -5, 2), ("2/4", 1, 2), ("1.5/3", 1, 2), (" 7 ", 7, 1),
    ] as [(String, Int64, Int64)])
    func parsesExactly(text: String, numerator: Int64, denominator: Int64) throws {
        let value = try Rational(parsing: text)
        #expect(value.numerator == numerator)
        #expect(value.denominator == denominator)
    }

    @Test(arguments: ["", "abc", "nan", "NaN", "inf", "1/0", "1..2", "1e3", "0x10", "/", "3/", "--1", "1 2"])
    func rejectsNonNumbers(text: String) {
        #expect(throws: CompositionError.self) { try Rational(parsing: text) }
    }

    @Test func decimalsRoundTrip() throws {
        #expect(r("1/4").exactDecimal() == "0.25")
        #expect(r("16/5").exactDecimal() == "3.2")
        #expect(r("1/3").exactDecimal() == nil)
        #expect(r("-7/8").exactDecimal() == "-0.875")
        #expect(r("1/3").readable == "0.333")
        #expect(r("1/64").readable == "0.015625")
        #expect(r("1/90").readable == "0.0111")
        #expect(r("12").exactDecimal() == "12")
    }

    @Test func arithmeticIsExact() throws {
        #expect(try r("1/3") + r("1/6") == r("1/2"))
        #expect(try r("1/3") * r("3") == r("1"))
        #expect(try r("1/4") / r("1/2") == r("1/2"))
        #expect(try r("1001/30000") - r("1/30") == r("1/30000"))
        #expect(try r("1/4").reciprocal == r("4"))
    }

    @Test func overflowIsAnErrorNotAWrongAnswer() {
        let big = try! Rational(Int64.max, 1)
        #expect(throws: CompositionError.self) { try big + Rational(1) }
        #expect(throws: CompositionError.self) { try big * Rational(2) }
        // Coprime denominators whose product needs more than 64 bits.
        let a = try! Rational(1, 4_294_967_291), b = try! Rational(1, 4_294_967_279)
        #expect(throws: CompositionError.self) { try (a + b) * Rational(1, 4_294_967_231) }
    }

    @Test func comparesWithoutDoubles() throws {
        // These differ by about 1e-18, far less than a Double can resolve.
        let a = try Rational(1, 3)
        let b = try Rational(333_333_333_333_333_334, 1_000_000_000_000_000_001)
        #expect(a.doubleValue == b.doubleValue)
        #expect(a < b)
        #expect(a != b)
    }
}

@Suite struct TimeTests {
    @Test func theClassicMistakeIsVisible() {
        // 2/600 s is not 2 s, and printing it says so.
        let t = Time(value: 2, timescale: 600)
        #expect(t.description == "0.003 s")
        #expect(t.secondsText == "1/300")
        #expect(t != .seconds(2))
        #expect(Time.seconds(2).description == "2 s")
    }

    @Test func equalityAndHashIgnoreTheTimescale() {
        let a = Time(value: 1200, timescale: 600), b = Time.seconds(2), c = Time(value: 30720, timescale: 15360)
        #expect(a == b && b == c)
        #expect(Set([a, b, c]).count == 1)
    }

    @Test(arguments: [
        ("3.2", "16/5"), ("00:01:03.200", "316/5"), ("1:03.2", "316/5"), ("01:00:00", "3600"),
        ("0", "0"), ("1/3", "1/3"), ("10", "10"), ("0:00.001", "1/1000"),
    ])
    func parsesTimes(text: String, seconds: String) throws {
        #expect(try Time(parsing: text).exactSeconds == r(seconds))
    }

    @Test(arguments: ["abc", "1:60", "1:2:3:4", "::", "1:-2", "nan", "3.2.1", ""])
    func rejectsBadTimes(text: String) {
        #expect(throws: CompositionError.self) { try Time(parsing: text) }
    }

    @Test func negativeTimesAreRefusedOnTheCommandLine() {
        #expect(throws: CompositionError.invalidTime("time -1 is negative; times count from 0 at the start of the timeline (write end-2s to count from its end)")) {
            try TimeExpression(parsing: "-1")
        }
    }

    @Test func specialValuesFollowCMTime() throws {
        #expect(try Time.positiveInfinity + .seconds(5) == .positiveInfinity)
        #expect(try Time.positiveInfinity + .negativeInfinity == .invalid)
        #expect(try Time.positiveInfinity - .positiveInfinity == .invalid)
        #expect(try Time.invalid + .seconds(1) == .invalid)
        #expect(try Time.indefinite + .seconds(1) == .indefinite)
        #expect(Time(value: 5, timescale: 0) == .invalid)
        // CMTimeCompare's order.
        let ordered: [Time] = [.negativeInfinity, .seconds(-3), .zero, .seconds(1_000_000), .indefinite, .positiveInfinity, .invalid]
        #expect(ordered.sorted() == ordered)
        #expect(ordered.shuffled().sorted() == ordered)
    }

    @Test(arguments: [
        // (seconds, timescale, rule, expected ticks)
        ("5/2", 1, FloatingPointRoundingRule.toNearestOrAwayFromZero, 3),
        ("5/2", 1, .toNearestOrEven, 2), ("5/2", 1, .down, 2), ("5/2", 1, .up, 3), ("5/2", 1, .towardZero, 2),
        ("-5/2", 1, .toNearestOrAwayFromZero, -3), ("-5/2", 1, .toNearestOrEven, -2), ("-5/2", 1, .down, -3),
        ("-5/2", 1, .up, -2), ("-5/2", 1, .towardZero, -2), ("-5/2", 1, .awayFromZero, -3),
        ("1/3", 600, .toNearestOrAwayFromZero, 200), ("1001/30000", 15360, .toNearestOrAwayFromZero, 513),
        ("1001/30000", 15360, .down, 512), ("1001/30000", 90000, .down, 3003),
    ] as [(String, Int32, FloatingPointRoundingRule, Int64)])
    func rescalesWithTheStatedRule(seconds: String, timescale: Int32, rule: FloatingPointRoundingRule, ticks: Int64) throws {
        let t = try s(seconds).rescaled(to: timescale, rounding: rule)
        #expect(t.value == ticks)
        #expect(t.timescale == timescale)
    }

    @Test(arguments: [Int32(600), 15360, 90000, 30000, 1000, 48000, 44100])
    func frameDurationsAddUpExactly(timescale: Int32) throws {
        // 30000 NTSC frame durations, each 1001/30000 s, are exactly 1001 s, whatever the
        // timescale they are summed in.
        let frame = s("1001/30000")
        var total = Time(value: 0, timescale: timescale)
        for _ in 0..<30000 { total = try total + frame }
        #expect(total == .seconds(1001))
        #expect(frame.isExact(in: 30000))
        #expect(!frame.isExact(in: 600))
    }

    @Test func overflowThrows() {
        let huge = Time(value: Int64.max, timescale: 1)
        #expect(throws: CompositionError.self) { try huge + .seconds(1) }
        // A timescale that cannot fit 32 bits.
        #expect(throws: CompositionError.self) {
            try Time(value: 1, timescale: 2_147_483_647) + Time(value: 1, timescale: 2_147_483_629)
        }
    }

    @Test func codableIsExactText() throws {
        let t = s("1/3")
        #expect(t.secondsText == "1/3")
        #expect(s("15.4").secondsText == "15.4")
        #expect(s("15.4").formatted(decimals: 3) == "15.400")
        #expect(s("-1/3").formatted(decimals: 2) == "-0.33")
    }
}

@Suite struct TimeRangeTests {
    let r = range("2", "5")

    @Test func isHalfOpen() {
        #expect(r.contains(s("2")))
        #expect(r.contains(s("4.999")))
        #expect(!r.contains(s("5")))
        #expect(!r.contains(s("1.999")))
    }

    @Test func predicates() throws {
        #expect(r.overlaps(range("4", "6")))
        #expect(!r.overlaps(range("5", "6")))
        #expect(r.meets(range("5", "6")))
        #expect(!r.meets(range("4", "6")))
        #expect(r.contains(range("2", "5")))
        #expect(!r.contains(range("1", "3")))
        #expect(try r.clamped(to: range("3", "10")) == range("3", "5"))
        #expect(try r.clamped(to: range("5", "10")) == nil)
    }

    @Test func refusesReversedAndNegative() {
        #expect(throws: CompositionError.invalidRange("range 5-3.2 ends before it starts")) {
            try TimeRange(start: s("5"), end: s("3.2"))
        }
        #expect(throws: CompositionError.self) { try TimeRange(start: .zero, duration: .seconds(-1)) }
        #expect(throws: CompositionError.self) { try TimeRange(start: .positiveInfinity, duration: .seconds(1)) }
    }

    @Test(arguments: [
        ("5.0-3.2", "range 5.0-3.2 ends before it starts"),
        ("3.2-3.2", "range 3.2-3.2 is empty; it starts and ends at 3.2 s"),
        ("3-12", "range 3-12 goes beyond the end of the timeline at 10 s"),
    ])
    func userRangesExplainThemselves(text: String, message: String) throws {
        let expression = try RangeExpression(parsing: text)
        #expect {
            try expression.resolved(timelineEnd: .seconds(10))
        } throws: { error in
            (error as? CompositionError)?.description == message
        }
    }

    @Test func endMeansTheTimelineEnd() throws {
        #expect(try RangeExpression(parsing: "8-end").resolved(timelineEnd: s("15.4")) == range("8", "15.4"))
        #expect(try RangeExpression(parsing: "00:00:01.5-0:03").resolved(timelineEnd: .seconds(10)) == range("1.5", "3"))
        #expect(throws: CompositionError.self) { try RangeExpression(parsing: "3.2") }
        #expect(throws: CompositionError.self) { try RangeExpression(parsing: "-5") }
    }
}
