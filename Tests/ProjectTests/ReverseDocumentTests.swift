import Composition
import Project
import Foundation
import Testing
import TestSupport

/// Documents that hold a reverse (issue 42): version 5, read back the same; version 4 for
/// every other document, as before; a version-4 document that claims a reverse is corrupt.
@Suite struct ReverseDocumentTests {
    @Test func aReverseMakesVersion5AndOnlyThen() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        func version() throws -> Int? {
            (try JSONSerialization.jsonObject(with: scratch.bytes()) as? [String: Any])?["version"] as? Int
        }
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            try d.apply(.scale(range: range("1", "2"), toDuration: s("4")))
        }
        #expect(try version() == 4)
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            try d.apply(.reverse(range: range("2", "6")))
        }
        #expect(try version() == 5)
        let read = try DocumentStore.read(scratch.document)
        #expect(read.timeline.tracks[0].segments.contains { $0.isReversed })
        #expect(try read.history.appliedEdits.last == .reverse(range: range("2", "6")))
        // Replayed on `verify`, the stored timeline is the history's.
        #expect(try DocumentStore.verify(scratch.document).document.timeline == read.timeline)
        // Undone, it can still be redone, so the document stays version 5.
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in try d.undo() }
        #expect(try version() == 5)
        let undone = try DocumentStore.read(scratch.document)
        #expect(!undone.timeline.tracks[0].segments.contains { $0.isReversed })
    }

    @Test func aVersion4DocumentWithAReverseIsCorrupt() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            try d.apply(.reverse(range: range("2", "6")))
        }
        let text = String(decoding: try scratch.bytes(), as: UTF8.self).replacingOccurrences(of: "\"version\" : 5", with: "\"version\" : 4")
        try Data(text.utf8).write(to: scratch.document)
        #expect {
            try DocumentStore.read(scratch.document)
        } throws: { error in
            guard case .corruptDocument(_, let reason)? = error as? ProjectError else { return false }
            return reason.contains("holds a reverse, which version 4 documents cannot hold")
        }
    }
}
