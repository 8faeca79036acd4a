import Foundation
import TestSupport
import Testing

/// Issue 40: commands on a document whose checksum matches read its history's entries as text
/// and decode only those they need. Each command here runs twice, on the document and on a
/// copy whose checksum is broken before every command, which slowpoke therefore decodes whole
/// and replays (the path every document took before); output and saved bytes must agree.
@Suite struct LongHistoryCommandTests {
    /// A document with 400 scales that cancel in pairs (written into the JSON, as
    /// `bench/scale.py` does), then a ramp, a freeze and a scale made by slowpoke, the scale undone.
    func longHistory() throws -> TemporaryFolder {
        let folder = try folderWithDocument()
        let url = folder.file("clip.slowpoke")
        var document = try json(String(decoding: try Data(contentsOf: url), as: UTF8.self))
        let slow: [String: Any] = ["op": "scale", "range": ["start": "1", "duration": "1"], "duration": "2"]
        let back: [String: Any] = ["op": "scale", "range": ["start": "1", "duration": "2"], "duration": "1"]
        document["history"] = ["applied": 400, "entries": (0..<400).map { ["date": "2026-11-26T12:00:00Z", "edit": $0 % 2 == 0 ? slow : back] }]
        try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]).write(to: url)
        for edit in [["ramp", "--range", "4-6", "--from", "1", "--to", "0.25"], ["freeze", "--at", "2", "--duration", "0.5"],
                     ["scale", "--range", "7-8", "--rate", "0.5"], ["undo"]] {
            let result = try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url)
            #expect(result.status == 0, "\(edit): \(result.stderr)")
        }
        return folder
    }

    /// A document's lines without its entries' dates and its checksum.
    func undated(_ data: Data) -> [Substring] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.contains("\"date\" : ") && !$0.contains("\"checksum\" : ") }
    }

    /// Changes one digit of the document's checksum.
    func breakChecksum(_ url: URL) throws {
        var bytes = try Data(contentsOf: url)
        let digit = try #require(bytes.firstRange(of: Data("\"checksum\" : \"".utf8))).upperBound
        bytes[digit] = bytes[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try bytes.write(to: url)
    }

    @Test func commandsGiveWhatDecodingTheWholeHistoryGives() throws {
        let text = try longHistory()
        let whole = try TemporaryFolder("cli")
        try FileManager.default.copyItem(at: text.file("clip.mp4"), to: whole.file("clip.mp4"))
        let commands: [[String]] = [
            ["info"], ["history"], ["history", "--json"], ["info", "--all"], ["redo"], ["redo"], ["undo"], ["undo"],
            ["undo"], ["history"], ["info"], ["scale", "--range", "1-2", "--rate", "0.25"], ["redo"], ["undo"], ["history", "--json"],
        ]
        var compared = 0
        for command in commands {
            let before = try Data(contentsOf: text.file("clip.slowpoke"))
            try? FileManager.default.removeItem(at: whole.file("clip.slowpoke"))
            try before.write(to: whole.file("clip.slowpoke"))
            try breakChecksum(whole.file("clip.slowpoke"))
            let a = try TestSupport.run(TestSupport.slowpoke, command, in: text.url)
            let b = try TestSupport.run(TestSupport.slowpoke, command, in: whole.url)
            #expect(a.status == b.status && a.stdout == b.stdout && a.stderr == b.stderr, "\(command): \(a.stdout)\(a.stderr) vs \(b.stdout)\(b.stderr)")
            let after = try Data(contentsOf: text.file("clip.slowpoke"))
            if after != before {
                // A command that saved: both wrote the same bytes (the slow one with the JSON
                // encoder, the other copying the entries it did not decode).
                // A new entry is dated by the clock, which may tick between the two runs: dates,
                // and the checksum over them, aside.
                #expect(undated(after) == undated(try Data(contentsOf: whole.file("clip.slowpoke"))), "\(command)")
            }
            compared += 1
        }
        #expect(compared == commands.count)
        // The scale dropped the three undone edits, then was undone itself.
        let history = try slowpoke("history", in: text)
        let lines = history.stdout.split(separator: "\n")
        #expect(lines.count == 401 && lines.last?.hasPrefix("401.  (undone) scale 1-2 to 4 s (0.25x)") == true, "\(history.stdout)")
        let verified = try slowpoke("verify", in: text)
        #expect(verified.status == 0 && verified.stdout.contains("what its 400 applied edits give"), "\(verified.stdout)\(verified.stderr)")
    }
}
