import Composition
@testable import Project
import Foundation
import Testing
import TestSupport

/// Issue 40: a document whose checksum matches is read with its history's entries left as
/// text, and saved with them copied. The oracle is the slow path it replaces: the same bytes
/// decoded whole (`DocumentStore.verify`, which also replays) and encoded whole (JSONEncoder).
@Suite struct HistoryTextTests {
    /// Every kind of edit, then pairs of scales that cancel (as `bench/scale.py` writes), so the
    /// history is long and the timeline short; the last `undone` are undone.
    static func longHistory(_ scratch: Scratch, pairs: Int, undone: Int) throws {
        _ = try scratch.create()
        let kinds: [Edit] = [try .scale(range: range("1", "2"), rate: r("1/4")), .remove(range: range("6", "7")),
                             .ramp(try Ramp(range: range("7", "9"), from: r("1"), to: r("1/2"), ease: .smooth, steps: 12)),
                             .freeze(range: range("2", "2.5")), .insertGap(range: range("0", "0.5")),
                             .slowMotion(try SlowMotion(range: range("3", "5"), rate: r("1/4")))]
        let slow = Edit.scale(range: range("1", "2"), toDuration: s("2"))
        let back = Edit.scale(range: range("1", "3"), toDuration: s("1"))
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            var date = Date(timeIntervalSince1970: 1_790_000_000)
            for edit in kinds + (0..<pairs).flatMap({ _ in [slow, back] }) {
                try d.apply(edit, date: date)
                date += 61
            }
            for _ in 0..<undone { try d.undo() }
        }
    }

    /// The document as read (entries as text) and as decoded whole, and their saved bytes.
    static func both(_ scratch: Scratch) throws -> (lazy: ProjectDocument, whole: ProjectDocument) {
        let lazy = try DocumentStore.read(scratch.document)
        let whole = try DocumentStore.verify(scratch.document).document
        #expect(lazy.history.text != nil && whole.history.text == nil)
        return (lazy, whole)
    }

    /// Reading leaves the entries as text and gives what decoding them all gives: the count,
    /// every entry, the applied edits, the ramps `info` labels; saving unchanged writes the
    /// file's own bytes, as the encoder of the whole document does.
    @Test(arguments: [0, 3, 205])
    func readingAsTextGivesWhatDecodingGives(undone: Int) throws {
        let scratch = try Scratch()
        try Self.longHistory(scratch, pairs: 150, undone: undone)
        let (lazy, whole) = try Self.both(scratch)
        #expect(lazy.history.count == 306 && lazy.history.applied == 306 - undone)
        #expect(lazy.history.count == whole.history.count && lazy.history.applied == whole.history.applied)
        let entries = try whole.history.entries
        var checked = 0
        for (index, entry) in entries.enumerated() {
            #expect(try lazy.history.entry(at: index) == entry)
            checked += 1
        }
        #expect(checked == 306)
        #expect(try lazy.history.entries == entries)
        #expect(try lazy.history.appliedEdits == (try whole.history.appliedEdits))
        for names in [["ramp", "slomo"], ["scale"], ["freeze"], ["remove", "insertGap"], ["reverse"]] {
            let expected = try whole.history.appliedEdits.filter { Set(names).contains($0.recordedName) }
            #expect(try lazy.history.appliedEdits(recordedAs: Set(names)) == expected, "\(names)")
        }
        #expect(lazy == whole)
        let saved = try scratch.bytes()
        #expect(try DocumentStore.encode(lazy) == saved)
        #expect(try DocumentStore.encode(whole) == saved)
    }

    /// Undo, redo and new edits on the history read as text give the edits, timelines and saved
    /// bytes that they give on the history decoded whole, past the last entry read as text too.
    @Test func editingAsTextGivesWhatDecodingGives() throws {
        let scratch = try Scratch()
        try Self.longHistory(scratch, pairs: 100, undone: 2)
        var (lazy, whole) = try Self.both(scratch)
        let late = Date(timeIntervalSince1970: 1_800_000_000)
        let steps: [(String, (inout ProjectDocument) throws -> Edit?)] = [
            ("undo", { try $0.undo() }), ("redo", { try $0.redo() }), ("redo", { try $0.redo() }),
            ("undo", { try $0.undo() }),
            ("scale", { try $0.apply(.scale(range: range("1", "2"), rate: r("1/2")), date: late); return nil }),
            ("undo", { try $0.undo() }), ("undo", { try $0.undo() }), ("undo", { try $0.undo() }),
            ("gap", { try $0.apply(.insertGap(range: range("0", "1")), date: late); return nil }),
            ("redo", { _ = try? $0.redo(); return nil }),
            ("undo", { try $0.undo() }), ("undo", { try $0.undo() }), ("redo", { try $0.redo() }),
        ]
        var checked = 0
        for (name, step) in steps {
            let a = try step(&lazy)
            let b = try step(&whole)
            #expect(a == b, "\(name)")
            #expect(lazy.timeline == whole.timeline, "\(name)")
            #expect(lazy.history == whole.history, "\(name)")
            #expect(try lazy.history.entries == (try whole.history.entries), "\(name)")
            #expect(try DocumentStore.encode(lazy) == (try DocumentStore.encode(whole)), "\(name)")
            checked += 1
        }
        #expect(checked == steps.count && lazy.history.text != nil)
        // Saved and read again as text, the document is the one decoded whole.
        try DocumentStore.create(lazy, at: scratch.document, replacing: true)
        let (again, wholeAgain) = try Self.both(scratch)
        #expect(again == whole && wholeAgain == whole)
        #expect(try DocumentStore.verify(scratch.document).checksum == .matches)
    }

    /// A damaged entry in a document whose checksum still matches (resealed) is not read by
    /// commands that do not need it; `verify` decodes every entry and refuses it, and asking
    /// for the entry gives the same error.
    @Test func aDamagedEntryIsFoundByVerify() throws {
        let scratch = try Scratch()
        try Self.longHistory(scratch, pairs: 20, undone: 0)
        var text = String(decoding: try scratch.bytes(), as: UTF8.self)
        // The 10th scale (entry 14) becomes an edit no slowpoke knows.
        let scales = text.ranges(of: "\"op\" : \"scale\"")
        #expect(scales.count == 41)
        text.replaceSubrange(scales[9], with: "\"op\" : \"scal\"")
        let digits = try #require(text.range(of: "\"checksum\" : \"")).upperBound
        text.replaceSubrange(digits..<text.index(digits, offsetBy: 64), with: String(repeating: "0", count: 64))
        try StoredTimeline.seal(Data(text.utf8)).write(to: scratch.document)

        let expected = ProjectError.corruptDocument(path: "clip.slowpoke", reason: "unknown edit \"scal\" at history.entries.[14].edit.op")
        #expect(throws: expected) { try DocumentStore.verify(scratch.document) }
        var document = try DocumentStore.read(scratch.document)
        #expect(document.history.count == 46)
        #expect(throws: expected) { try document.history.entries }
        #expect(throws: expected) { try document.history.entry(at: 14) }
        #expect(try document.history.entry(at: 13).edit.recordedName == "scale")
        #expect(try document.undo() == .scale(range: range("1", "3"), toDuration: s("1")))
    }

    /// Every edit is recorded under the name `recordedName` gives.
    @Test func recordedNamesAreTheRecordedOps() throws {
        let edits: [Edit] = [try .scale(range: range("1", "2"), rate: r("1/4")), .remove(range: range("6", "7")),
                             .ramp(try Ramp(range: range("7", "9"), from: r("1"), to: r("1/2"), steps: 12)),
                             .freeze(range: range("2", "2.5")), .insertGap(range: range("0", "0.5")),
                             .slowMotion(try SlowMotion(range: range("3", "5"), rate: r("1/4")))]
        for edit in edits {
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(edit)) as? [String: Any])
            #expect(json["op"] as? String == edit.recordedName)
        }
        #expect(Set(edits.map(\.recordedName)).count == 6)
    }

    /// The outline finds members and elements past strings holding brackets, quotes and
    /// escapes, and gives up (nil) on bytes it cannot follow.
    @Test(arguments: [
        (#"{"a" : 1, "b" : [1, {"c" : "]}\"{"}], "d\"" : "x"}"#, [#"a"#, #"b"#, #"d\""#], [#"1"#, #"[1, {"c" : "]}\"{"}]"#, #""x""#]),
        (" { } ", [], []),
        (#"{"a":true,"b":null,"c":-1.5e3}"#, ["a", "b", "c"], ["true", "null", "-1.5e3"]),
    ] as [(String, [String], [String])])
    func outlineFindsMembers(json: String, keys: [String], values: [String]) throws {
        let bytes = Array(json.utf8)
        let members = try #require(bytes.withUnsafeBytes { JSONOutline(bytes: $0).members(ofObjectIn: 0..<$0.count) })
        #expect(members.map { String(decoding: bytes[$0.key], as: UTF8.self) } == keys)
        #expect(members.map { String(decoding: bytes[$0.value], as: UTF8.self) } == values)
    }

    @Test(arguments: [#"{"a" : 1"#, #"{"a" 1}"#, #"{"a" : 1,}"#, #"{"a" : "1}"#, #"{"a" : 1} x"#, #"[1]"#, "", #"{"a" : [1, 2}"#])
    func outlineRefusesWhatItCannotFollow(json: String) {
        let bytes = Array(json.utf8)
        #expect(bytes.withUnsafeBytes { JSONOutline(bytes: $0).members(ofObjectIn: 0..<$0.count) } == nil)
    }
}
