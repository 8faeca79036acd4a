import Composition
import Foundation
@testable import Project
import Testing
import TestSupport

/// Several ranges edited at once are recorded as one `group` edit, in version 6 documents only.
@Suite struct GroupDocumentTests {
    @Test func aGroupMakesVersion6AndReadsBack() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        func version() throws -> Int? {
            (try JSONSerialization.jsonObject(with: scratch.bytes()) as? [String: Any])?["version"] as? Int
        }
        let group = try Edit.grouped([.scale(range: range("5", "6"), toDuration: s("2")), .reverse(range: range("1", "2"))])
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in try d.apply(group) }
        #expect(try version() == 6)
        let read = try DocumentStore.read(scratch.document)
        #expect(read.history.count == 1)
        #expect(try read.history.appliedEdits == [group])
        // Replayed on `verify`, the stored timeline is the history's.
        #expect(try DocumentStore.verify(scratch.document).document.timeline == read.timeline)
        // Marked version 5, the document is corrupt, not misread by a slowpoke that knows no groups.
        let text = String(decoding: try scratch.bytes(), as: UTF8.self).replacingOccurrences(of: "\"version\" : 6", with: "\"version\" : 5")
        try Data(text.utf8).write(to: scratch.document)
        #expect {
            try DocumentStore.read(scratch.document)
        } throws: { error in
            guard case .corruptDocument(_, let reason)? = error as? ProjectError else { return false }
            return reason.contains("holds several ranges edited at once, which version 5 documents cannot hold")
        }
    }
}
