import Composition
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Several ranges in one edit (``Edit/group(_:)``): each range edited as if alone on the timeline
/// before the edit, one undo, and a record that reads back as the same edit.
@Suite struct EditGroupTests {
    /// 2 to 4 ranges apart on `c`, each with an edit of one of the groupable kinds.
    static func randomParts(on c: Composition, _ g: inout SplitMix64) throws -> [Edit]? {
        var cuts = (0..<(2 * Int.random(in: 2...4, using: &g))).map { _ in randomTime(upTo: c.duration, &g) }.sorted()
        cuts = cuts.enumerated().filter { $0.offset == 0 || $0.element != cuts[$0.offset - 1] }.map(\.element)
        guard cuts.count >= 4 else { return nil }
        var parts: [Edit] = []
        for index in stride(from: 0, to: cuts.count - 1, by: 2) {
            let range = try TimeRange(start: cuts[index], end: cuts[index + 1])
            switch Int.random(in: 0..<4, using: &g) {
            case 0: parts.append(try .scale(range: range, rate: rates.randomElement(using: &g)!))
            case 1: parts.append(.reverse(range: range))
            case 2: parts.append(.ramp(try Ramp(range: range, from: rates.randomElement(using: &g)!, to: rates.randomElement(using: &g)!,
                                                steps: Int.random(in: 1...20, using: &g))))
            default: parts.append(.remove(range: range))
            }
        }
        return parts
    }

    @Test func aGroupIsItsPartsFromTheLastAndUndoesAtOnce() async {
        let applied = Counter(), undone = Counter()
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...6)) { seed, prior in
            var g = SplitMix64(state: seed)
            let before = randomComposition(seed: seed &+ 1, edits: prior)
            guard let parts = try? Self.randomParts(on: before, &g), let group = try? Edit.grouped(parts.shuffled(using: &g)) else { return }
            #expect(group.parts == parts, "seed \(seed): parts in timeline order")
            var one = before, each = before
            do {
                try group.apply(to: &one)
                for part in parts.reversed() { try part.apply(to: &each) }
            } catch { return }  // a rate out of range, refused as a whole
            #expect(one == each, "seed \(seed): \(group.summary)")
            applied.add()
            // The record reads back as the same edit.
            let data = try! JSONEncoder().encode(group)
            #expect(try! JSONDecoder().decode(Edit.self, from: data) == group, "seed \(seed)")
            guard !parts.contains(where: { if case .remove = $0 { true } else { false } }) else {
                #expect(group.undone(on: one) == nil, "seed \(seed): a group with a cut is undone by replaying")
                return
            }
            guard let back = group.undone(on: one) else { return }
            #expect(back == before, "seed \(seed): undoing \(group.summary)")
            undone.add()
        }
        #expect(applied.value >= 100, "only \(applied.value) of 200 groups applied")
        #expect(undone.value >= 30, "only \(undone.value) groups undone without replay")
    }

    @Test func overlappingRangesAndOtherEditsAreRefused() throws {
        let a = try TimeRange(start: .seconds(1), end: .seconds(3)), b = try TimeRange(start: .seconds(2), end: .seconds(4))
        #expect(throws: CompositionError.self) { try Edit.grouped([.remove(range: a), .remove(range: b)]) }
        #expect(throws: CompositionError.self) { try Edit.grouped([.remove(range: a), .remove(range: a)]) }
        #expect(throws: CompositionError.self) { try Edit.grouped([.remove(range: a), .insertGap(range: b)]) }
        let single = try Edit.grouped([.reverse(range: a)])
        #expect(single == .reverse(range: a), "one range is the plain edit, recorded as before")
        // A recorded group whose parts overlap or are out of order is not read.
        let c = try TimeRange(start: .seconds(5), end: .seconds(6))
        let unchecked = try JSONEncoder().encode(Edit.group([.remove(range: c), .remove(range: a)]))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Edit.self, from: unchecked) }
        let good = try JSONEncoder().encode(try Edit.grouped([.remove(range: c), .remove(range: a)]))
        #expect(try JSONDecoder().decode(Edit.self, from: good).parts == [.remove(range: a), .remove(range: c)])
    }
}
