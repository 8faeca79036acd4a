import Foundation
import TestSupport
import Testing

/// Issue 40 end to end: `verify` replays a document's history, other commands trust a stored
/// timeline whose checksum matches, and `info` summarises a long timeline.
@Suite struct VerifyCommandTests {
    /// The document's JSON, changed by `change`, written back as is (its checksum no longer
    /// matches, as after a hand edit).
    func rewrite(_ folder: TemporaryFolder, _ change: (inout [String: Any]) -> Void) throws {
        let url = folder.file("clip.slowpoke")
        var document = try json(String(decoding: try Data(contentsOf: url), as: UTF8.self))
        change(&document)
        try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]).write(to: url)
    }

    /// The rows of `info`'s segment table: `  12   3.4 - 3.6   ...`.
    func tableRows(_ info: String) -> [Substring] {
        info.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true && $0.contains(" - ") }
    }

    @Test func verifyReplaysAndRefusesAHistoryThatDisagrees() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("scale", "--range", "1-2", "--rate", "0.5", in: folder).status == 0)
        #expect(try slowpoke("ramp", "--range", "4-6", "--from", "1", "--to", "0.25", in: folder).status == 0)
        let verified = try slowpoke("verify", in: folder)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout == "clip.slowpoke: the timeline (34 segments) is what its 2 applied edits give; the movie is unchanged; its checksum matches\n")
        // The count `info` shows for the same timeline (video and audio share its segments).
        let info = try slowpoke("info", in: folder).stdout
        #expect(info.contains("Timeline of clip.slowpoke (video and audio, 34 segments):"), "\(info)")

        // A hand edit that drops the ramp from the history: the checksum no longer matches, so
        // every command replays, and refuses the document.
        try rewrite(folder) { document in
            var history = document["history"] as! [String: Any]
            history["entries"] = Array((history["entries"] as! [Any]).prefix(1))
            history["applied"] = 1
            document["history"] = history
        }
        for command in [["verify"], ["info"]] {
            let refused = try TestSupport.run(TestSupport.slowpoke, command, in: folder.url)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("clip.slowpoke") && refused.stderr.contains("its timeline does not match its edit history"), "\(refused.stderr)")
        }
    }

    /// A version 3 document (no checksum) reads and shows exactly as the version 4 one, and
    /// `verify` says it has no checksum; the next edit writes version 4.
    @Test func aVersion3DocumentReadsAsBefore() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("freeze", "--at", "2", "--duration", "1.5", in: folder).status == 0)
        let before = try slowpoke("info", "--json", in: folder).stdout
        try rewrite(folder) { document in
            document["checksum"] = nil
            document["version"] = 3
        }
        #expect(try slowpoke("info", "--json", in: folder).stdout == before)
        let verified = try slowpoke("verify", in: folder)
        #expect(verified.stdout.hasSuffix("it has no checksum (a document of version 1 to 3, or another tool's); the next edit writes one\n"), "\(verified.stdout)")
        #expect(try slowpoke("scale", "--range", "5-6", "--rate", "2", in: folder).status == 0)
        let document = try json(String(decoding: try Data(contentsOf: folder.file("clip.slowpoke")), as: UTF8.self))
        #expect(document["version"] as? Int == 4 && (document["checksum"] as? String)?.count == 64)
    }

    /// More than 40 rows: the first and last 20 and a count; --all and --json hold every row.
    @Test func infoSummarisesALongTimeline() throws {
        let folder = try folderWithDocument()
        for start in stride(from: 9, through: 0, by: -1) {
            // Later ranges first, so that each edit leaves the ranges before it where they were.
            #expect(try slowpoke("scale", "--range", "\(start).6-\(start).7", "--rate", "2", in: folder).status == 0)
            #expect(try slowpoke("scale", "--range", "\(start).2-\(start).4", "--rate", "0.5", in: folder).status == 0)
        }
        let segments = try #require((try json(try slowpoke("info", "--json", in: folder).stdout)["tracks"] as? [[String: Any]])?.first?["segments"] as? [Any])
        #expect(segments.count == 41)
        let info = try slowpoke("info", in: folder).stdout
        let rows = tableRows(info)
        #expect(rows.count == 40, "\(info)")
        #expect(rows.first?.hasPrefix("  1 ") == true && rows.last?.hasPrefix("  41 ") == true, "\(info)")
        #expect(info.contains("  … 1 more row (`slowpoke info --all` shows every row)\n"), "\(info)")
        #expect(info.contains("  20  ") && !info.contains("\n  21  ") && info.contains("\n  22  "), "\(info)")
        let all = try slowpoke("info", "--all", in: folder).stdout
        #expect(tableRows(all).count == 41)
        #expect(!all.contains("more row"))
    }
}
