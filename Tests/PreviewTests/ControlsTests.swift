import Composition
import Foundation
@testable import Preview
import Testing
import TimePitch

@Suite struct ControlsTests {
    @Test func ladderStepsThroughEveryRateAndStopsAtTheEnds() throws {
        var rate = try Rational(1, 32)
        var seen = [rate]
        while true {
            let next = RateLadder.step(from: rate, 1)
            if next == rate { break }
            seen.append(next)
            rate = next
        }
        let expected: [Double] = [1.0 / 32, 1.0 / 16, 1.0 / 8, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 4, 8, 16, 32]
        #expect(seen.map(\.doubleValue) == expected)
        #expect(RateLadder.step(from: try Rational(32), 1) == (try Rational(32)))
        #expect(RateLadder.step(from: try Rational(1, 32), -1) == (try Rational(1, 32)))
        // Off the ladder, a step goes to the neighbouring rung.
        #expect(RateLadder.step(from: try Rational(3), 1) == (try Rational(4)))
        #expect(RateLadder.step(from: try Rational(3), -1) == (try Rational(2)))
    }

    /// The acceptance sequence of the issue, from --rate 1.25: →→ is 2x; c; ← four times is 0.75x.
    @Test func acceptanceSequence() throws {
        var settings = PlaybackSettings(rate: try Rational(5, 4), algorithm: .spectral)
        settings.stepRate(1); settings.stepRate(1)
        #expect(settings.rate == (try Rational(2)))
        settings.toggleChipmunk()
        #expect(settings.algorithm == .varispeed)
        for _ in 0..<3 { settings.stepRate(-1) }
        #expect(settings.rate == .one, "the issue's ladder puts 1x three steps below 2x")
        settings.stepRate(-1)
        #expect(settings.rate == (try Rational(3, 4)))
        settings.toggleChipmunk()
        #expect(settings.algorithm == .spectral, "c returns to the algorithm it left")
    }

    @Test func pitchStepsLeaveVarispeedAndStopAt24() {
        var settings = PlaybackSettings(algorithm: .varispeed)
        settings.stepPitch(1)
        #expect(settings.algorithm == .timeDomain && settings.semitones == 1)
        for _ in 0..<40 { settings.stepPitch(1) }
        #expect(settings.semitones == 24)
        settings.toggleChipmunk()
        #expect(settings.semitones == 0, "varispeed has no pitch shift of its own")
        settings.toggleStretch()
        #expect(settings.algorithm == .spectral)
        settings.toggleStretch()
        #expect(settings.algorithm == .timeDomain)
    }

    @Test func statusLineShowsEverything() throws {
        var settings = PlaybackSettings(rate: try Rational(3, 4), algorithm: .spectral, semitones: -2)
        settings.playing = true
        settings.markOut = try Time(seconds: try Rational(9, 2))
        settings.markIn = try Time(seconds: try Rational(2))
        let line = settings.status(time: try Time(seconds: try Rational(13, 4)), duration: .seconds(70))
        #expect(line == "▶  0.75x  spectral  -2 st  00:03.250 / 01:10.000  [00:02.000 – 00:04.500]")
        #expect(settings.markedRange == (try TimeRange(start: .seconds(2), end: try Time(seconds: try Rational(9, 2)))))
        #expect(PlaybackSettings.rateText(try Rational(1, 16)) == "1/16")
        #expect(PlaybackSettings.rateText(try Rational(5, 4)) == "1.25")
    }
}

/// Issue 54: the status fits any window, shows the speed heard, and chipmunk gives the pitch back.
@Suite struct StatusTests {
    @Test func chipmunkRestoresTheSemitonesItReplaced() {
        var settings = PlaybackSettings(algorithm: .spectral, semitones: 2)
        settings.toggleChipmunk()
        #expect(settings.algorithm == .varispeed && settings.semitones == 0)
        settings.toggleChipmunk()
        #expect(settings.algorithm == .spectral && settings.semitones == 2)
        settings.stepPitch(1)
        settings.toggleChipmunk()
        settings.stepPitch(-1)  // leaves varispeed from +3, then one down
        #expect(settings.algorithm == .spectral && settings.semitones == 2)
    }

    @Test func theSpeedHereIsTheSectionRateTimesTheKeyRate() throws {
        let slow = try CompositionTrackSegment(source: try TimeRange(start: .zero, end: .seconds(1)),
                                               target: try TimeRange(start: .zero, end: .seconds(4)))
        let reversed = try CompositionTrackSegment(source: try TimeRange(start: .zero, end: .seconds(1)),
                                                   target: try TimeRange(start: .zero, end: .seconds(1)), reversed: true)
        let hold = try CompositionTrackSegment(holding: .seconds(1), target: try TimeRange(start: .zero, end: .seconds(1)))
        let half = try Rational(1, 2)
        #expect(PlaybackSettings.speedHere(rate: half, section: slow) == "0.125x")
        #expect(PlaybackSettings.speedHere(rate: half, section: reversed) == "-0.5x")
        #expect(PlaybackSettings.speedHere(rate: half, section: hold) == "frozen")
        #expect(PlaybackSettings.speedHere(rate: .one, section: nil) == nil)
        var settings = PlaybackSettings(rate: half, algorithm: .spectral)
        settings.playing = true
        let line = settings.status(time: .seconds(1), duration: .seconds(4), section: slow)
        #expect(line == "▶  0.5x (0.125x here)  spectral  +0 st  00:01.000 / 00:04.000", "\(line)")
    }

    /// Fewer fields first, then smaller type; the clock, the duration and the marks stay.
    @Test(arguments: [2000, 700, 500, 420, 330, 250, 100])
    func theStatusShortensRatherThanCuts(_ available: Int) throws {
        var settings = PlaybackSettings(rate: try Rational(3, 4), algorithm: .spectral, semitones: -2)
        settings.markIn = .seconds(2)
        settings.markOut = .seconds(5)
        let variants = settings.statusVariants(time: .seconds(3), duration: .seconds(70), notes: ["audio 2/3 fra"])
        #expect(variants.count == 4 && variants.map(\.count) == variants.map(\.count).sorted(by: >), "\(variants)")
        for variant in variants.dropFirst(2) {
            #expect(variant.contains("01:10.000") && variant.contains("00:02.000") && variant.contains("00:05.000"), "\(variant)")
        }
        // A monospaced face: 0.6 em a character.
        let measure = { (text: String, size: Int) -> Int? in Int(Double(text.count * size) * 0.6) }
        let chosen = StatusFit.choose(variants, available: available, measure: measure)
        let width = measure(chosen.text, chosen.size)!
        if available >= 300 {
            #expect(width <= available, "\(chosen) is \(width) px in \(available)")
        }
        // Smaller type only once the shortest variant does not fit at the largest.
        #expect(chosen.size == 18 || chosen.text == variants.last!)
        if chosen.size < 18 { #expect(measure(variants.last!, 18)! > available) }
    }

    @Test func messagesStayAFewSecondsThreeAtATime() {
        var messages = ScreenMessages()
        let start = Date()
        for i in 0..<5 { messages.add("note \(i)", at: start) }
        #expect(messages.visible(at: start.addingTimeInterval(1)) == ["note 2", "note 3", "note 4"])
        #expect(messages.visible(at: start.addingTimeInterval(4.5)).isEmpty)
        #expect(ScreenMessages.lifetime(of: String(repeating: "x", count: 120)) == 6)
    }
}
