import Composition
import Project
import Foundation
import Testing
import TestSupport

/// Version 4 documents (issue 40): the timeline is stored with a checksum and read without
/// replaying the history when the checksum matches; otherwise, and for `verify`, replayed.
@Suite struct StoredTimelineTests {
    /// A document after three edits, saved.
    static func edited(_ scratch: Scratch) throws {
        _ = try scratch.create()
        let edits: [Edit] = [try .scale(range: range("1", "2"), rate: r("1/4")), .remove(range: try range("6", "7")),
                             .ramp(try Ramp(range: range("7", "9"), from: r("1"), to: r("1/2"), steps: 12))]
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            for edit in edits { try d.apply(edit) }
        }
    }

    /// The document's JSON with `change` applied, written back; sealed again with a new
    /// checksum when `reseal` (as a careful forger, or a bug that keeps the checksum, would).
    static func rewrite(_ scratch: Scratch, reseal: Bool, _ change: (inout [String: Any]) -> Void) throws {
        var json = try #require(try JSONSerialization.jsonObject(with: scratch.bytes()) as? [String: Any])
        change(&json)
        if reseal { json["checksum"] = String(repeating: "0", count: 64) }
        var data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        try (reseal ? StoredTimeline.seal(data) : data).write(to: scratch.document)
    }

    /// The history with its last applied edit taken out (the timeline no longer follows from it).
    static func dropLastEdit(_ json: inout [String: Any]) {
        var history = json["history"] as! [String: Any]
        var entries = history["entries"] as! [Any]
        entries.removeLast()
        history["entries"] = entries
        history["applied"] = entries.count
        json["history"] = history
    }

    @Test func savedDocumentsAreVersion4WithAMatchingChecksum() throws {
        let scratch = try Scratch()
        try Self.edited(scratch)
        let json = try #require(try JSONSerialization.jsonObject(with: scratch.bytes()) as? [String: Any])
        #expect(json["version"] as? Int == 4)
        let checksum = try #require(json["checksum"] as? String)
        #expect(checksum.count == 64 && checksum != String(repeating: "0", count: 64))
        #expect(StoredTimeline.checksum(of: try scratch.bytes()) == .matches)
        let verified = try DocumentStore.verify(scratch.document)
        #expect(verified.checksum == .matches && verified.document.history.applied == 3)
        #expect(try DocumentStore.read(scratch.document) == verified.document)
    }

    /// With a matching checksum the history is not replayed (a resealed document whose history
    /// lost an edit still reads); `verify` replays it and refuses it.
    @Test func aMatchingChecksumIsTrustedAndVerifyReplays() throws {
        let scratch = try Scratch()
        try Self.edited(scratch)
        try Self.rewrite(scratch, reseal: true, Self.dropLastEdit)
        #expect(StoredTimeline.checksum(of: try scratch.bytes()) == .matches)
        #expect(try DocumentStore.read(scratch.document).history.applied == 2)
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "its timeline does not match its edit history")) {
            try DocumentStore.verify(scratch.document)
        }
    }

    /// A checksum that does not match (a hand edit) means replay, which finds the disagreement.
    @Test func aDifferentChecksumMeansReplay() throws {
        let scratch = try Scratch()
        try Self.edited(scratch)
        try Self.rewrite(scratch, reseal: false, Self.dropLastEdit)
        #expect(StoredTimeline.checksum(of: try scratch.bytes()) == .differs)
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "its timeline does not match its edit history")) {
            try DocumentStore.read(scratch.document)
        }
    }

    /// Documents of versions 1 to 3 have no checksum: they are replayed, as before, and a
    /// consistent one reads to the same document.
    @Test(arguments: [1, 2, 3])
    func olderVersionsAreReplayed(version: Int) throws {
        let scratch = try Scratch()
        try Self.edited(scratch)
        let saved = try DocumentStore.read(scratch.document)
        try Self.rewrite(scratch, reseal: false) { json in
            json["checksum"] = nil
            json["version"] = version
        }
        #expect(StoredTimeline.checksum(of: try scratch.bytes()) == .missing)
        #expect(try DocumentStore.read(scratch.document) == saved)
        #expect(try DocumentStore.verify(scratch.document).checksum == .missing)
        try Self.rewrite(scratch, reseal: false, Self.dropLastEdit)
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "its timeline does not match its edit history")) {
            try DocumentStore.read(scratch.document)
        }
    }

    /// A checksum written into an older version's document is not looked at: the version says
    /// what the fields mean.
    @Test func aChecksumInAnOlderVersionIsIgnored() throws {
        let scratch = try Scratch()
        try Self.edited(scratch)
        try Self.rewrite(scratch, reseal: true) { json in
            json["version"] = 3
            Self.dropLastEdit(&json)
        }
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "its timeline does not match its edit history")) {
            try DocumentStore.read(scratch.document)
        }
    }

    /// A matching checksum over a timeline no edit can leave (here two neighbours that continue
    /// each other, and a rate of 64) is not trusted: the document is replayed and refused.
    @Test(arguments: ["unmerged", "rate"])
    func anImplausibleTimelineIsReplayed(kind: String) throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        try Self.rewrite(scratch, reseal: true) { json in
            var timeline = json["timeline"] as! [String: Any]
            var tracks = timeline["tracks"] as! [[String: Any]]
            tracks[0]["segments"] = kind == "unmerged"
                ? [["rate": "1", "source": ["start": "0", "duration": "4"], "target": ["start": "0", "duration": "4"]],
                   ["rate": "1", "source": ["start": "4", "duration": "6"], "target": ["start": "4", "duration": "6"]]]
                : [["rate": "64", "source": ["start": "0", "duration": "10"], "target": ["start": "0", "duration": "5/32"]]]
            timeline["tracks"] = tracks
            json["timeline"] = timeline
        }
        #expect(StoredTimeline.checksum(of: try scratch.bytes()) == .matches)
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "its timeline does not match its edit history")) {
            try DocumentStore.read(scratch.document)
        }
    }
}
