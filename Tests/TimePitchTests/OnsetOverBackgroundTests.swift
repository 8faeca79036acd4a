import Composition
import Foundation
import TestSupport
import Testing
import TimePitch

/// Attacks over a background (issue 36, item 7): a beep over a steady tone is split from what
/// plays before it like a beep in silence, so slowing it down neither starts it early nor
/// smears it back over the tone.
@Suite struct OnsetOverBackgroundTests {
    /// Where the beep starts in the source, and the slowed range around it.
    static let beepAt = 0.5, slowed = ("0.2", "0.8")

    /// A 300 Hz tone at 0.1 for 1.2 s with a 2 kHz beep of 50 ms, `decibels` above the tone,
    /// from `beepAt`.
    static func input(decibels: Double) -> [Float] {
        let tone = Signals.tone(300, seconds: 1.2, amplitude: 0.1)
        let beep = Signals.tone(2000, seconds: 0.05, amplitude: Float(0.1 * pow(10, decibels / 20)))
        var input = tone
        let start = Int(beepAt * Double(sampleRate))
        for (i, x) in beep.enumerated() { input[start + i] += x }
        return input
    }

    /// The level of 2 kHz (the beep; the tone is 1.7 kHz away) in a 4 ms Blackman-Harris
    /// window centred on frame `centre`, as an amplitude.
    static func beepLevel(_ samples: [Float], at centre: Int) -> Double {
        let n = 192
        var re = 0.0, im = 0.0, weights = 0.0
        for k in 0..<n {
            let x = 2 * Double.pi * Double(k) / Double(n - 1)
            let w = 0.35875 - 0.48829 * cos(x) + 0.14128 * cos(2 * x) - 0.01168 * cos(3 * x)
            let i = centre - n / 2 + k
            let s = i >= 0 && i < samples.count ? Double(samples[i]) : 0
            let phase = 2 * Double.pi * 2000 * Double(i) / Double(sampleRate)
            re += s * w * cos(phase)
            im -= s * w * sin(phase)
            weights += w
        }
        return 2 * (re * re + im * im).squareRoot() / weights
    }

    /// Measures one render: the beep's attack (where its 2 kHz level first reaches half its
    /// level 20 ms in) against where the timeline puts it, in ms, and the loudest 2 kHz level
    /// in the 100 ms before that (windows wholly more than 2 ms before it), in dB of the beep;
    /// and the same loudest level in `alone` (the tone alone, rendered the same way): what the
    /// algorithm makes at 2 kHz with no beep at all.
    static func measure(_ output: [Float], alone: [Float], expected: Int) -> (offset: Double, preEcho: Double, floor: Double) {
        let full = beepLevel(output, at: expected + sampleRate / 50)
        let from = expected - sampleRate / 10
        let attack = (from..<(expected + sampleRate / 50)).first { beepLevel(output, at: $0) >= full / 2 } ?? from
        let ms = sampleRate / 1000
        let centres = stride(from: from + 96, through: expected - 2 * ms - 96, by: 8)
        let loudest = centres.map { beepLevel(output, at: $0) }.max()!
        let floor = centres.map { beepLevel(alone, at: $0) }.max()!
        return (Double(attack - expected) / Double(ms), 20 * log10(max(loudest, 1e-9) / full), 20 * log10(max(floor, 1e-9) / full))
    }

    static let cases: [(Double, TimePitchAlgorithm, String)] = [6.0, 12, 18].flatMap { db in
        [TimePitchAlgorithm.spectral, .timeDomain].flatMap { a in ["1/8", "1/4", "1/2"].map { (db, a, $0) } }
    }

    /// Every case: the beep's attack within 2 ms of its place, and nothing of it above -30 dB
    /// in the 100 ms before. Pre-echo is 2 kHz that the beep brings: R2 (timeDomain) slowed 8x
    /// plays the beep about 20 dB quiet and makes 2 kHz of its own from the tone alone, up to
    /// -29 dB of that quiet beep, so what the tone alone makes there, plus 3 dB, is allowed too.
    @Test func attacksOverAToneLandOnTime() throws {
        var checked = 0
        var report: [String] = []
        let silence = [Float](repeating: 0, count: 38400)
        for (db, algorithm, rate) in Self.cases {
            let segments = try timeline(seconds: 2, scaling: [(Self.slowed.0, Self.slowed.1, rate)])
            let settings = try TimePitchSettings(algorithm: algorithm)
            let output = try render(Self.input(decibels: db) + silence, segments, settings)
            let alone = try render(Signals.tone(300, seconds: 1.2, amplitude: 0.1) + silence, segments, settings)
            // 0.2 s at 1x, then 0.3 s of source slowed by `rate`.
            let expected = Int((0.2 + 0.3 / r(rate).doubleValue) * Double(sampleRate))
            let (offset, preEcho, floor) = Self.measure(output, alone: alone, expected: expected)
            report.append("\(Int(db)) dB \(algorithm) \(rate): attack \(String(format: "%+.2f", offset)) ms, "
                          + "pre-echo \(String(format: "%.1f", preEcho)) dB (tone alone \(String(format: "%.1f", floor)) dB)")
            #expect(abs(offset) <= 2, "\(db) dB, \(algorithm) at \(rate): attack off by \(offset) ms")
            #expect(preEcho <= max(-30, floor + 3), "\(db) dB, \(algorithm) at \(rate): pre-echo \(preEcho) dB, tone alone \(floor) dB")
            checked += 1
        }
        print(report.joined(separator: "\n"))
        #expect(checked == 18)
    }

    /// A steady background alone is never split: a 300 Hz tone, a 40 Hz tone (a 5 ms window of
    /// it holds from a tenth to twice its mean) and white noise, slowed 4x, render bit for bit
    /// as they do with splitting off, and click no more than the tone's own steps.
    @Test(arguments: [TimePitchAlgorithm.spectral, .timeDomain], ["300 Hz", "40 Hz", "noise"])
    func aSteadyBackgroundIsNotSplit(algorithm: TimePitchAlgorithm, background: String) throws {
        var random = SplitMix64(state: 36)
        let input: [Float] = switch background {
        case "300 Hz": Signals.tone(300, seconds: 2, amplitude: 0.3)
        case "40 Hz": Signals.tone(40, seconds: 2, amplitude: 0.3)
        default: (0..<(2 * sampleRate)).map { _ in Float(random.unit() * 0.6 - 0.3) }
        }
        let segments = try timeline(seconds: 2, scaling: [("0.5", "1.5", "1/4")])
        var outputs: [[Float]] = []
        for split in [true, false] {
            let source = MemoryAudioSource(sampleRate: sampleRate, samples: [input])
            let renderer = TimelineRenderer(format: source.format, settings: try TimePitchSettings(algorithm: algorithm))
            renderer.splitsAtOnsets = split
            var output: [Float] = []
            try renderer.render(segments, from: source) { block, count in output += block[0][0..<count] }
            outputs.append(output)
        }
        #expect(outputs[0].count == 5 * sampleRate)
        #expect(outputs[0] == outputs[1], "\(algorithm), \(background): splitting changed the render")
        if background != "noise" {
            let inside = Array(outputs[0][(sampleRate / 2 + 2400)..<(9 * sampleRate / 2 - 2400)])
            #expect(Signals.largestStep(inside) <= 2 * Signals.largestStep(input), "\(algorithm), \(background)")
        }
    }
}
