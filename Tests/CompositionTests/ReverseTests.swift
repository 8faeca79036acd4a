import Composition
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Reverse (issue 42): a range played backwards, as one edit on the segment model.
@Suite struct ReverseTests {
    /// On random timelines (cuts, gaps, scales, earlier reverses), reversing a random range
    /// keeps the length, leaves the track in its simplest form, and shows at every time `t`
    /// inside it what the timeline showed at `start + end - t` before; outside it nothing
    /// changes. Reversing the same range again gives back the timeline exactly, and so does
    /// undoing the edit.
    @Test func reversingMirrorsTheRange() async {
        let checked = Counter(), sampled = Counter()
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...8)) { seed, prior in
            var g = SplitMix64(state: seed)
            var before = randomComposition(seed: seed &+ 1, edits: prior)
            if prior % 3 == 0, let earlier = randomRange(within: before.duration, &g) { try? before.reverseTimeRange(earlier) }
            guard let range = randomRange(within: before.duration, &g) else { return }
            var after = before
            do { try Edit.reverse(range: range).apply(to: &after) } catch {
                // Only times finer than exact arithmetic holds may refuse it, as every edit does.
                guard case CompositionError.overflow = error else { Issue.record("seed \(seed): reversing \(range) threw \(error)"); return }
                return
            }
            #expect(after.duration == before.duration, "seed \(seed)")
            for track in after.tracks { #expect(track.isSimplest, "seed \(seed): unmerged neighbours") }
            let boundaries = Set(after.tracks.flatMap { $0.segments.map(\.target.start) } + before.tracks.flatMap { $0.segments.map(\.target.start) })
            for _ in 0..<12 {
                let t = randomTime(upTo: before.duration, &g)
                // Times too fine for exact arithmetic (stacked rates) are skipped, not compared.
                guard let mirrored = range.contains(t) ? try? range.start + range.end - t : t,
                      !boundaries.contains(t), !boundaries.contains(mirrored), t != range.start else { continue }
                for (a, b) in zip(after.tracks, before.tracks) {
                    guard let now = try? a.presentation(at: t)?.sourceTime, let then = try? b.presentation(at: mirrored)?.sourceTime else { continue }
                    #expect(now == then, "seed \(seed), prior \(prior): at \(t) in \(range): \(String(describing: now)) for \(String(describing: then))")
                }
                sampled.add()
            }
            var again = after
            try! again.reverseTimeRange(range)
            #expect(again == before, "seed \(seed), prior \(prior): reversing \(range) twice")
            #expect(Edit.reverse(range: range).undone(on: after) == before, "seed \(seed): undo")
            checked.add()
        }
        #expect(checked.value >= 200, "only \(checked.value) of 300 reverses applied")
        #expect(sampled.value >= 2000, "only \(sampled.value) times compared")
    }

    /// `reverse 2-4` then `scale 2-4 0.5`: the source 2-4 plays backwards over 4 s, rate -1/2.
    @Test func reverseThenScalePlaysBackwardsAtHalfSpeed() throws {
        var c = try Composition(asset: movie())
        try Edit.reverse(range: TimeRange(start: .seconds(2), end: .seconds(4))).apply(to: &c)
        try Edit.scale(range: TimeRange(start: .seconds(2), end: .seconds(4)), rate: r("1/2")).apply(to: &c)
        let segment = c.tracks[0].segments[1]
        #expect(segment.target == (try TimeRange(start: .seconds(2), end: .seconds(6))))
        #expect(segment.source == (try TimeRange(start: .seconds(2), end: .seconds(4))))
        #expect(segment.isReversed && segment.signedRate == r("-1/2"))
        #expect(try segment.sourceTime(at: .seconds(3)) == Time(seconds: r("7/2")))
        #expect(try segment.compositionTime(forSourceTime: Time(seconds: r("7/2"))) == .seconds(3))
    }

    /// A ramp across a reversed range ramps its speed: every step still plays backwards, the
    /// rates run from the ramp's first to its last in timeline order, and the source still
    /// falls from 6 to 2.
    @Test func aRampAcrossAReversedRangeRampsItsSpeed() throws {
        var c = try Composition(asset: movie())
        try Edit.reverse(range: range("2", "6")).apply(to: &c)
        try Edit.ramp(Ramp(range: range("2", "6"), from: r("1"), to: r("1/4"), steps: 8)).apply(to: &c)
        let steps = c.tracks[0].segments.filter(\.isReversed)
        #expect(steps.count == 8)
        let rates = steps.compactMap(\.rate)
        #expect(rates.first! > rates.last! && rates == rates.sorted(by: >), "\(rates)")
        #expect(steps.first?.source?.end == s("6") && steps.last?.source?.start == s("2"))
        for (a, b) in zip(steps, steps.dropFirst()) { #expect(a.source?.start == b.source?.end) }
    }

    /// A reversed segment split by a scale and scaled back merges into one again (backwards
    /// contiguity: the later piece plays the earlier source).
    @Test func reversedPiecesMergeBack() throws {
        var c = try Composition(asset: movie())
        try c.reverseTimeRange(TimeRange(start: .seconds(2), end: .seconds(6)))
        let reversed = c
        try c.scaleTimeRange(TimeRange(start: .seconds(3), end: .seconds(4)), toDuration: .seconds(2))
        #expect(c.tracks[0].segments.count == 5)
        #expect(c.tracks[0].segments[2].source == (try TimeRange(start: .seconds(4), end: .seconds(5))))
        try c.scaleTimeRange(TimeRange(start: .seconds(3), end: .seconds(5)), toDuration: .seconds(1))
        #expect(c == reversed)
    }

    /// The document form: `"reverse": true` and a negative rate, read back the same; a hold
    /// or a gap marked reversed, or a rate whose sign disagrees, is refused.
    @Test func codableKeepsTheDirection() throws {
        var c = try Composition(asset: movie())
        try c.reverseTimeRange(TimeRange(start: .seconds(1), end: .seconds(3)))
        let data = try JSONEncoder().encode(c)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"reverse\":true") && text.contains("\"rate\":\"-1\""), "\(text)")
        #expect(try JSONDecoder().decode(Composition.self, from: data) == c)
        let wrongSign = text.replacingOccurrences(of: "\"rate\":\"-1\"", with: "\"rate\":\"1\"")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Composition.self, from: Data(wrongSign.utf8)) }
        let segment = #"{"target":{"start":"0","duration":"1"},"hold":"2","reverse":true}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CompositionTrackSegment.self, from: Data(segment.utf8)) }
    }
}
