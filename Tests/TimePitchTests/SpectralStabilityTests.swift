import Composition
import Foundation
import TestSupport
import Testing
import TimePitch

/// Rubber Band 3.1.2's R3 engine diverges at speed-ups of about 12.5x to 16x with its standard
/// window: its output grows to 1e12 and beyond, differently on every run (issue 35: exports
/// failed with "encoding failed: Invalid argument" or differed). The spectral algorithm must
/// stay bounded there, alone and inside a run of joined steps (a key-frame map).
@Suite struct SpectralStabilityTests {
    /// 8 s of a 440 Hz tone at 0.4 with uniform noise at 0.1 (the same on every run).
    static let input: [Float] = {
        var random = SplitMix64(state: 35)
        return (0..<(8 * sampleRate)).map { i in
            Float(0.4 * sin(2 * Double.pi * 440 * Double(i) / Double(sampleRate)) + 0.1 * (random.unit() - 0.5))
        }
    }()

    /// The samples of `output` that are not finite or louder than any input could make.
    static func wild(_ output: [Float]) -> [Int] {
        output.indices.filter { !output[$0].isFinite || abs(output[$0]) > 1 }
    }

    @Test(arguments: ["12", "25/2", "13", "14", "15", "16", "17", "20"])
    func fastSpeedsStayBounded(rate: String) throws {
        let output = try stretch(Self.input, rate: r(rate), TimePitchSettings(algorithm: .spectral))
        let expected = Double(Self.input.count) / Double(r(rate).numerator) * Double(r(rate).denominator)
        #expect(abs(Double(output.count) - expected) <= 1, "\(output.count) frames at \(rate)x")
        let bad = Self.wild(output)
        #expect(bad.isEmpty, "at \(rate)x: \(bad.count) of \(output.count) samples are wild, from \(bad.first ?? 0)")
        #expect(output.count >= 8 * sampleRate / 21)
    }

    /// Steps of 11x, 13x and 15x over continuous source: one Rubber Band run with a key-frame map.
    @Test func joinedStepsThroughTheUnstableSpeedsStayBounded() throws {
        let segments = try timeline(seconds: 8, scaling: [("6", "8", "15"), ("4", "6", "13"), ("2", "4", "11")])
        let output = try render(Self.input, segments, TimePitchSettings(algorithm: .spectral))
        let bad = Self.wild(output)
        #expect(bad.isEmpty, "\(bad.count) of \(output.count) samples are wild, from \(bad.first ?? 0)")
        #expect(output.count >= 2 * sampleRate)
    }
}
