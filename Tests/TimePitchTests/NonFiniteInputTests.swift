import Composition
import Foundation
import TestSupport
import Testing
import TimePitch

/// NaN and infinite source samples become silence, are counted once each, and are said once.
@Suite struct NonFiniteInputTests {
    /// A 3 s tone with bad samples on both sides of the joins of a timeline scaled to 1/2 over
    /// 1-2 s: each is read more than once (a neighbour's context, timeDomain's study pass).
    @Test(arguments: ["spectral", "timeDomain", "varispeed"] as [String])
    func badSamplesAreSilencedAndCountedOnce(algorithm: String) throws {
        var input = Signals.tone(440, seconds: 3)
        let bad: [(Int, Float)] = [(47_990, .nan), (48_010, .infinity), (96_005, -.infinity), (120_000, .signalingNaN)]
        for (at, value) in bad { input[at] = value }
        let source = MemoryAudioSource(sampleRate: sampleRate, samples: [input])
        let settings = try TimePitchSettings(algorithm: TimePitchAlgorithm(rawValue: algorithm)!)
        let renderer = TimelineRenderer(format: source.format, settings: settings)
        var warnings: [String] = []
        renderer.onWarning = { warnings.append($0) }
        var output: [Float] = []
        try renderer.render(timeline(seconds: 3, scaling: [("1", "2", "1/2")]), from: source) { block, count in
            output += block[0][0..<count]
        }
        #expect(output.count == 4 * sampleRate)
        #expect(output.allSatisfy { $0.isFinite }, "\(output.filter { !$0.isFinite }.count) non-finite samples")
        #expect(warnings == ["4 non-finite samples (NaN or infinity) replaced with silence"])
        // The tone plays on through the scaled part.
        #expect(Signals.rms(output[60_000..<140_000]) > 0.25)
    }

    /// Finite extremes (the largest float, the smallest subnormal, -0) are samples like any
    /// other: a copy at rate 1 keeps them, and nothing is said.
    @Test func finiteExtremesAreKept() throws {
        let values: [Float] = [.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.0, 1, -1]
        var input = [Float](repeating: 0, count: 4800)
        input.replaceSubrange(2400..<(2400 + values.count), with: values)
        let source = MemoryAudioSource(sampleRate: sampleRate, samples: [input])
        let renderer = TimelineRenderer(format: source.format, settings: try TimePitchSettings(algorithm: .spectral))
        var warnings: [String] = []
        renderer.onWarning = { warnings.append($0) }
        let length = Time(value: 4800, timescale: Int32(sampleRate))
        let whole = try CompositionTrackSegment(source: TimeRange(start: .zero, duration: length), target: TimeRange(start: .zero, duration: length))
        var output: [Float] = []
        try renderer.render([whole], from: source) { block, count in output += block[0][0..<count] }
        #expect(warnings.isEmpty)
        #expect(output.count == 4800)
        // Equal as numbers (the mixer adds -0 to 0, which makes +0).
        #expect(Array(output[2400..<(2400 + values.count)]) == values)
    }
}
