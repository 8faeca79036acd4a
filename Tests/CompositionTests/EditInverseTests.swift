import Composition
import PropertyBased
import Testing
import TestSupport

/// Undo without replay (issue 40): ``Edit/undone(on:)`` gives exactly the timeline before the
/// edit, or nil (then the document replays its history).
@Suite struct EditInverseTests {
    /// A random edit of the kinds that have an inverse (and a cut, which has none).
    static func randomEdit(on c: Composition, _ g: inout SplitMix64) throws -> Edit? {
        guard let span = randomRange(within: c.duration, &g) else { return nil }
        switch Int.random(in: 0..<5, using: &g) {
        case 0: return try .scale(range: span, rate: rates.randomElement(using: &g)!)
        case 1: return .insertGap(range: try TimeRange(start: span.start, duration: randomTime(upTo: .seconds(2), &g)))
        case 2: return span.start < c.duration ? .freeze(range: try TimeRange(start: span.start, duration: span.duration)) : nil
        case 3: return .ramp(try Ramp(range: span, from: rates.randomElement(using: &g)!, to: rates.randomElement(using: &g)!,
                                      steps: Int.random(in: 1...50, using: &g)))
        default: return .remove(range: span)
        }
    }

    @Test func undoneIsTheTimelineBefore() async {
        let inverted = Counter(), checked = Counter()
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...10)) { seed, prior in
            var g = SplitMix64(state: seed)
            let before = randomComposition(seed: seed &+ 1, edits: prior)
            guard let edit = try? Self.randomEdit(on: before, &g) else { return }
            var after = before
            do { try edit.apply(to: &after) } catch { return }  // refused edits leave nothing to undo
            if case .remove = edit {
                #expect(edit.undone(on: after) == nil, "seed \(seed): a cut has no inverse")
                return
            }
            checked.add()
            // Nil is allowed (an inverse whose times do not fit falls back to replay), but rare.
            guard let undone = edit.undone(on: after) else { return }
            #expect(undone == before, "seed \(seed), prior \(prior): undoing \(edit.summary)")
            inverted.add()
        }
        #expect(checked.value >= 150, "only \(checked.value) of 300 edits with an inverse applied")
        #expect(inverted.value >= checked.value * 9 / 10, "only \(inverted.value) of \(checked.value) edits were undone by their inverse")
    }
}
