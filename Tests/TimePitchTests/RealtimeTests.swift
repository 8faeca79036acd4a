import Composition
import Foundation
import TestSupport
import Testing
import TimePitch

/// Plays `source` (mono) through `engine` in 512-frame pulls, calling `each` before every pull
/// with the output frame it starts at.
func play(_ engine: RealtimeTimePitch, _ source: [Float], frames: Int, each: (Int) throws -> Void = { _ in }) throws -> (output: [Float], positions: [Double]) {
    var output: [Float] = []
    var positions: [Double] = []
    while output.count < frames {
        try each(output.count)
        positions.append(engine.sourcePosition)
        let block = try engine.render(512) { from, count in
            [(0..<count).map { i in
                let p = Int(from) + i
                return p >= 0 && p < source.count ? source[p] : 0
            }]
        }
        output += block[0]
    }
    return (output, positions)
}

/// The frequency in a short window, from zero crossings (robust for a pure tone).
func localFrequency(_ x: [Float], from: Int, count: Int) -> Double {
    var crossings = 0
    for i in from..<(from + count - 1) where x[i] < 0 && x[i + 1] >= 0 { crossings += 1 }
    return Double(crossings) * 48000 / Double(count)
}

@Suite struct RealtimeTests {
    let format = AudioFormat(sampleRate: 48000, channels: 1)

    @Test(arguments: [(TimePitchAlgorithm.spectral, 0.5, 440.0), (.timeDomain, 0.5, 440.0), (.timeDomain, 3, 440.0),
                      (.varispeed, 2, 880.0), (.varispeed, 0.5, 220.0)])
    func pitch(algorithm: TimePitchAlgorithm, rate: Double, expected: Double) throws {
        let engine = try RealtimeTimePitch(format: format, algorithm: algorithm, rate: rate)
        let (out, _) = try play(engine, Signals.tone(440, seconds: 2 * rate + 1), frames: 96000)
        let f = Signals.dominantFrequency(out, from: 48000, count: 32768)
        // R2 in real-time mode holds a pure tone to about 1% (the rubberband CLI's --realtime
        // gives 441-443 Hz for 440 at half speed); offline, every engine is held to 0.5%.
        let tolerance = algorithm == .timeDomain ? 0.01 : 0.005
        #expect(abs(f - expected) / expected < tolerance, "\(algorithm) at \(rate): \(f) Hz")
    }

    /// A pitch change (or, for varispeed, a rate change) is heard within 100 ms.
    @Test(arguments: [TimePitchAlgorithm.spectral, .timeDomain, .varispeed])
    func changesAreHeardWithin100ms(algorithm: TimePitchAlgorithm) throws {
        let engine = try RealtimeTimePitch(format: format, algorithm: algorithm, rate: 1)
        let switchAt = 48128  // a pull boundary (94 × 512)
        let (out, _) = try play(engine, Signals.tone(440, seconds: 4), frames: 96000) { frame in
            if frame == switchAt {
                if algorithm == .varispeed { try engine.setRate(2) } else { try engine.setSemitones(12) }
            }
        }
        #expect(localFrequency(out, from: switchAt - 9600, count: 4800) < 480)
        let heard = stride(from: switchAt, to: 96000 - 960, by: 48).first { localFrequency(out, from: $0, count: 960) > 800 }
        let delay = Double(try #require(heard) - switchAt) / 48000
        #expect(delay < 0.1, "\(algorithm): heard after \(delay) s")
        #expect(engine.latency < 0.1)
    }

    /// The reported source position follows what is heard: each click comes out when the
    /// position says its source frame is playing, within 20 ms.
    @Test(arguments: [(TimePitchAlgorithm.timeDomain, 0.5), (.spectral, 0.5), (.timeDomain, 2), (.varispeed, 0.5), (.varispeed, 2)])
    func sourcePositionTracksTheOutput(algorithm: TimePitchAlgorithm, rate: Double) throws {
        let engine = try RealtimeTimePitch(format: format, algorithm: algorithm, rate: rate)
        let clicks = Signals.clicks(every: 0.5, seconds: 8)
        let clickFrames = Signals.onsets(clicks)
        let (out, positions) = try play(engine, clicks, frames: Int(4 / rate * 48000))
        let heard = Signals.onsets(out, threshold: (out.map(abs).max() ?? 1) * 0.3, quiet: Int(12000 / rate))
        #expect(heard.count >= 3)
        for onset in heard {
            // Where the engine said the source was at this output frame.
            let block = onset / 512
            let said = positions[block] + Double(onset - block * 512) * rate
            let nearest = clickFrames.min { abs(Double($0) - said) < abs(Double($1) - said) }!
            let signed = (said - Double(nearest)) / rate / 48000
            let error = abs(signed)
            #expect(error < 0.02, "\(algorithm) at \(rate): click heard at output \(onset) while the position said \(said), nearest click \(nearest)")
        }
    }

    /// Over a long run with rate changes, the position does not drift: clicks at the end are
    /// still heard where the position says, within 20 ms.
    @Test(arguments: [TimePitchAlgorithm.timeDomain, .spectral])
    func noDriftAcrossRateChanges(algorithm: TimePitchAlgorithm) throws {
        let engine = try RealtimeTimePitch(format: format, algorithm: algorithm, rate: 1)
        let clicks = Signals.clicks(every: 1, seconds: 40)
        let clickFrames = Signals.onsets(clicks)
        let schedule: [Int: Double] = [48000 * 3: 0.5, 48000 * 8: 2, 48000 * 12: 0.75, 48000 * 15: 1.5, 48000 * 18: 0.8]
        let (out, positions) = try play(engine, clicks, frames: 48000 * 30) { frame in
            if let rate = schedule[frame - frame % 512], frame % 512 == 0 { try engine.setRate(rate) }
        }
        let heard = Signals.onsets(out, threshold: (out.map(abs).max() ?? 1) * 0.3, quiet: 24000)
            .filter { $0 > 48000 * 20 }
        #expect(heard.count >= 5)
        for onset in heard {
            let block = onset / 512
            let said = positions[block] + Double(onset - block * 512) * 0.8
            let nearest = clickFrames.min { abs(Double($0) - said) < abs(Double($1) - said) }!
            #expect(abs(said - Double(nearest)) / 0.8 / 48000 < 0.02, "\(algorithm): drifted to \(said) vs \(nearest)")
        }
    }

    @Test func switchingAlgorithmsContinuesFromWhatIsHeard() throws {
        let engine = try RealtimeTimePitch(format: format, algorithm: .timeDomain, rate: 1)
        let source = Signals.tone(440, seconds: 6)
        var before = 0.0
        let (out, _) = try play(engine, source, frames: 96000) { frame in
            if frame == 48128 {
                before = engine.sourcePosition
                try engine.setAlgorithm(.varispeed)
                #expect(abs(engine.sourcePosition - before) < 1)
            }
        }
        #expect(before > 40000 && before < 49000)
        #expect(engine.algorithm == .varispeed)
        #expect(abs(localFrequency(out, from: 72000, count: 9600) - 440) < 15)
    }

    @Test func badSettingsAreRefused() throws {
        #expect(throws: TimePitchError.rateOutOfRange("rate 64.0 is outside the supported 0.03125 to 32")) { try RealtimeTimePitch(format: format, rate: 64) }
        let engine = try RealtimeTimePitch(format: format, algorithm: .spectral)
        #expect(throws: TimePitchError.rateOutOfRange("rate 0.0 is outside the supported 0.03125 to 32")) { try engine.setRate(0) }
        #expect(throws: TimePitchError.semitonesOutOfRange(25)) { try engine.setSemitones(25) }
        #expect(engine.rate == 1 && engine.semitones == 0)
    }
}
