import Composition
import Foundation
import TestSupport
import Testing
import TimePitch

/// A reversed segment's audio, rendered over mirrored frames (issue 42): at rate 1 it is the
/// source's samples in reverse order, exactly, away from the crossfades of its joins; its
/// untouched neighbours are the source's own samples; and it is never an untouched span.
@Suite struct ReversedRenderTests {
    /// 0-1 s forwards, 1-2 s backwards, 2-3 s forwards, over a signal whose every sample differs.
    static func timeline() throws -> [CompositionTrackSegment] {
        let s = { (x: Int64) in Time(value: x, timescale: 1) }
        return [try CompositionTrackSegment(source: TimeRange(start: s(0), end: s(1)), target: TimeRange(start: s(0), end: s(1))),
                try CompositionTrackSegment(source: TimeRange(start: s(1), end: s(2)), target: TimeRange(start: s(1), end: s(2)), reversed: true),
                try CompositionTrackSegment(source: TimeRange(start: s(2), end: s(3)), target: TimeRange(start: s(2), end: s(3)))]
    }

    @Test(arguments: [TimePitchAlgorithm.spectral, .timeDomain, .varispeed])
    func rateOneReversedIsTheSamplesBackwards(algorithm: TimePitchAlgorithm) throws {
        let input = (0..<(3 * sampleRate)).map { Float($0) / Float(3 * sampleRate) - 0.5 }
        let output = try render(input, Self.timeline(), try TimePitchSettings(algorithm: algorithm))
        #expect(output.count == input.count)
        let fade = sampleRate / 200
        var checked = 0
        for i in 0..<output.count {
            let t = i / sampleRate, offset = i % sampleRate
            guard offset >= fade && offset < sampleRate - fade else { continue }
            let wanted = t == 1 ? input[2 * sampleRate - 1 - offset] : input[i]
            #expect(output[i] == wanted, "sample \(i): \(output[i]), wanted \(wanted)")
            if output[i] != wanted { return }
            checked += 1
        }
        #expect(checked > 3 * (sampleRate - 2 * fade) - 10)
    }

    @Test func aReversedSegmentIsNeverUntouched() throws {
        let renderer = TimelineRenderer(format: AudioFormat(sampleRate: sampleRate, channels: 1), settings: try TimePitchSettings(algorithm: .spectral))
        let spans = try renderer.untouchedSpans(Self.timeline())
        let fade = Int64(sampleRate / 400), second = Int64(sampleRate)
        // A join's fade lies inside the later segment: the first span runs to the reversed
        // segment's start, the last starts after its own opening fade.
        #expect(spans == [UntouchedSpan(output: 0..<second, offset: 0),
                          UntouchedSpan(output: (2 * second + fade)..<(3 * second), offset: 0)], "\(spans)")
    }
}
