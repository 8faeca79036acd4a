import Composition
import Foundation
import Project
import Interchange
import Synchronization
import Testing
import TestSupport

/// slowpoke imports its own OTIO files exactly (issue 50): the edits that made a timeline travel
/// beside it (`metadata.slowpoke.edits`), and an import replays them when they give the
/// timeline the tracks describe. Without them, stacked edits on mixed grids can need a time
/// beyond a 32-bit timescale in every order of remove, scale and insert (the 400-case oracle
/// run refused 12 of its own round trips so).
@Suite struct OTIORecordedEditsTests {
    /// A random edit of the kinds the document records, on media grids and awkward rates.
    static func randomEdit(on c: Composition, _ g: inout SplitMix64) throws -> Edit? {
        guard let span = randomRange(within: c.duration, &g) else { return nil }
        switch Int.random(in: 0..<6, using: &g) {
        case 0, 1: return try .scale(range: span, rate: rates.randomElement(using: &g)!)
        case 2: return .insertGap(range: try TimeRange(start: span.start, duration: randomTime(upTo: .seconds(2), &g)))
        case 3: return .ramp(try Ramp(range: span, from: rates.randomElement(using: &g)!, to: rates.randomElement(using: &g)!,
                                      steps: Int.random(in: 1...12, using: &g)))
        case 4: return .reverse(range: span)
        default: return span.duration < c.duration ? .remove(range: span) : nil
        }
    }

    /// Random edit sequences: every timeline comes back exactly from its own file, and the
    /// edits come back too. The same files without their edits are refused now and then (the
    /// case this fixes), which the test counts so that it cannot pass vacuously.
    @Test func ownFilesImportExactly() throws {
        let tried = Counter(), refusedWithout = Counter()
        for seed in UInt64(0)..<300 {
            var g = SplitMix64(state: seed &* 0x9E37_79B9_7F4A_7C15)
            var c = try Composition(asset: movie())
            var edits: [Edit] = []
            for _ in 0..<Int.random(in: 2...8, using: &g) {
                guard let edit = try? Self.randomEdit(on: c, &g) else { continue }
                var next = c
                guard (try? edit.apply(to: &next)) != nil else { continue }
                (c, edits) = (next, edits + [edit])
            }
            guard let text = try? OTIO.export(c, movie: otioMovie, edits: edits) else { continue }
            tried.add()
            let timeline = try OTIO.read(Data(text.utf8))
            #expect(timeline.edits == edits, "seed \(seed): the edits do not come back")
            do {
                let replayed = try OTIO.replay(timeline, on: Composition(asset: movie()))
                #expect(replayed.composition == c, "seed \(seed)")
                #expect(try OTIO.export(replayed.composition, movie: otioMovie, edits: replayed.edits) == text, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed), \(edits.count) edits: \(error)")
            }
            if let plain = try? OTIO.export(c, movie: otioMovie), (try? importOTIO(plain)) == nil { refusedWithout.add() }
        }
        #expect(tried.value >= 250, "only \(tried.value) timelines exported")
        // Without the edits some of these are refused: the case the edits fix is among them.
        #expect(refusedWithout.value >= 1, "no timeline needed its edits; the test no longer shows what they fix")
    }

    /// Edits that no longer describe the tracks (another tool moved a clip) are ignored: the
    /// tracks are what is imported.
    @Test func editsThatDisagreeWithTheTracksAreIgnored() throws {
        var c = try Composition(asset: movie())
        let made: [Edit] = [try .scale(range: range("2", "4"), rate: r("1/2")), .remove(range: range("6", "7"))]
        for edit in made { try edit.apply(to: &c) }
        var other = try Composition(asset: movie())
        try Edit.remove(range: range("1", "3")).apply(to: &other)
        // `other`'s tracks with `c`'s edits: a file whose items were changed elsewhere.
        let text = try OTIO.export(other, movie: otioMovie, edits: made)
        let imported = try OTIO.replay(OTIO.read(Data(text.utf8)), on: Composition(asset: movie()))
        #expect(imported.composition == other)
        #expect(imported.edits != made)
    }
}
