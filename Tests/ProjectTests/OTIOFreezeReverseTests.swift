import Composition
import Project
import Interchange
import Foundation
import Testing
import TestSupport

/// Freezes beside reversed ranges in OpenTimelineIO (issue 50): slowpoke reads back every
/// timeline it writes, whatever order the freezes, reversals, scales, cuts and gaps came in.
@Suite struct OTIOFreezeReverseTests {
    /// The issue's two cases: `freeze --at 3.2 --duration 2` then `reverse --range 2-4`, and
    /// `reverse --range 2-4` then `freeze --at 3 --duration 1`, each refused on import before.
    @Test(arguments: [[Edit.freeze(range: range("3.2", "5.2")), .reverse(range: range("2", "4"))],
                      [.reverse(range: range("2", "4")), .freeze(range: range("3", "4"))]])
    func theIssuesTimelinesImport(edits: [Edit]) throws {
        var c = try Composition(asset: movie())
        for edit in edits { try edit.apply(to: &c) }
        #expect(try importOTIO(OTIO.export(c, movie: otioMovie)) == c)
    }

    /// Random edit sequences mixing freezes and reversals with scales, cuts and gaps: each
    /// exported timeline imports as the very same timeline.
    @Test func randomFreezesAndReversalsRoundTrip() throws {
        var checked = 0, withBoth = 0
        for seed in UInt64(1)...300 {
            var g = SplitMix64(state: seed)
            var c = randomComposition(seed: seed, edits: Int(seed % 4))
            for _ in 0..<(2 + Int(seed % 3)) {
                let kind = Int.random(in: 0..<3, using: &g)
                if kind == 0, c.duration > .zero {
                    let at = randomTime(upTo: c.duration, &g)
                    try? c.insertHold(at: at, duration: randomTime(upTo: .seconds(2), &g))
                } else if let span = randomRange(within: c.duration, &g) {
                    try? Edit.reverse(range: span).apply(to: &c)
                    if kind == 2 { try? Edit.scale(range: span, rate: r("1/2")).apply(to: &c) }
                }
            }
            let segments = c.tracks[0].segments
            guard let text = try? OTIO.export(c, movie: otioMovie) else { continue }
            do {
                let back = try importOTIO(text)
                #expect(back == c, "seed \(seed)")
            } catch {
                // Times finer than exact arithmetic holds are refused as for forward timelines.
                if "\(error)".contains("exact arithmetic") { continue }
                Issue.record("seed \(seed): \(error)")
            }
            checked += 1
            if segments.contains(where: \.isReversed) && segments.contains(where: { $0.heldTime != nil }) { withBoth += 1 }
        }
        #expect(checked >= 250 && withBoth >= 80, "\(checked) timelines checked, \(withBoth) with a freeze and a reversal")
    }
}
