import Composition
import Foundation
import Preview
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
