import Composition
@testable import Project
import Foundation
import Testing
import TestSupport

/// Documents are written with their timeline and history spliced in a segment and an entry at a
/// time (`TimelineText`, `HistoryText`); the oracle is JSONEncoder on the whole document, whose
/// bytes (sealed with the same checksum) must be the same.
@Suite struct TimelineTextTests {
    static func wholeEncoding(_ document: ProjectDocument) throws -> Data {
        var data = try DocumentStore.encoder().encode(document)
        data.append(0x0A)
        StoredTimeline.seal(&data)
        return data
    }

    /// Seeded random edits of every kind (a reversal, holds, gaps, a ramp, cuts) on a document.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func documentsAreWrittenAsTheWholeEncoderWritesThem(seed: UInt64) throws {
        let scratch = try Scratch()
        var document = try scratch.create()
        var g = SplitMix64(state: seed)
        var applied = 0
        var date = Date(timeIntervalSince1970: 1_790_000_000)
        for _ in 0..<40 {
            let duration = document.timeline.duration
            guard let range = randomRange(within: duration, &g), range.duration > .zero else { continue }
            let edits: [Edit] = [.remove(range: range), .insertGap(range: range), .freeze(range: range), .reverse(range: range),
                                 (try? Edit.scale(range: range, rate: r("1/3"))) ?? .remove(range: range),
                                 .ramp(try Ramp(range: range, from: r("1"), to: r("1/2"), ease: .smooth, steps: 5))]
            let edit = edits[Int.random(in: 0..<edits.count, using: &g)]
            do { try document.apply(edit, date: date); applied += 1 } catch {}
            date += 7
        }
        #expect(applied >= 10, "seed \(seed): only \(applied) edits applied")
        #expect(try DocumentStore.encode(document) == (try Self.wholeEncoding(document)), "seed \(seed) (the arguments list the seeds)")
    }

    @Test func aNewDocumentIsWrittenAsTheWholeEncoderWritesIt() throws {
        let document = try Scratch().create()
        #expect(try DocumentStore.encode(document) == (try Self.wholeEncoding(document)))
    }
}
