import Foundation
import TestSupport
import Testing

/// `slowpoke reverse` (issue 42): one edit, one undo; `info`, `info --json`, `history` and the
/// speed graph show it; a reversed range scaled plays backwards at the new speed.
@Suite struct ReverseCommandTests {
    @Test func reverseIsOneEditThatInfoHistoryAndJSONShow() throws {
        let folder = try folderWithDocument()
        let reverse = try slowpoke("reverse", "--range", "2-4", in: folder)
        #expect(reverse.status == 0, "\(reverse.stderr)")
        #expect(reverse.stdout == "reverse 2-4; the timeline is now 10 s\n")
        let info = try slowpoke("info", in: folder)
        let rows = info.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.contains("2 2 - 4 4 - 2 reverse"), "\(info.stdout)")
        #expect(info.stdout.contains("rev "), "the speed graph marks the reversed columns: \(info.stdout)")

        let scale = try slowpoke("scale", "--range", "2-4", "--rate", "0.5", in: folder)
        #expect(scale.status == 0, "\(scale.stderr)")
        let json = try json(try slowpoke("info", "--json", in: folder).stdout)
        let segments = try #require((json["tracks"] as? [[String: Any]])?.first?["segments"] as? [[String: Any]])
        #expect(segments.map { $0["rate"] as? String } == ["1", "-0.5", "1"], "\(segments)")
        #expect(segments[1]["reverse"] as? Bool == true)
        let shown = try slowpoke("info", in: folder).stdout
        #expect(shown.contains("reverse 0.5x"), "\(shown)")

        let history = try slowpoke("history", in: folder).stdout
        #expect(history.contains("reverse 2-4"), "\(history)")
        #expect(try slowpoke("undo", in: folder).status == 0)
        #expect(try slowpoke("undo", in: folder).stdout == "undid: reverse 2-4; the timeline is now 10 s\n")
        let plain = try slowpoke("info", in: folder).stdout
        #expect(plain.contains("Timeline of clip.slowpoke (video and audio, 1 segment)"), "\(plain)")
        #expect(try slowpoke("verify", in: folder).status == 0)
    }

    @Test func aRangeOutsideTheTimelineIsRefusedAndChangesNothing() throws {
        let folder = try folderWithDocument()
        let before = try Data(contentsOf: folder.file("clip.slowpoke"))
        let result = try slowpoke("reverse", "--range", "8-12", in: folder)
        #expect(result.status != 0)
        #expect(result.stderr.contains("8-12"), "\(result.stderr)")
        #expect(try Data(contentsOf: folder.file("clip.slowpoke")) == before)
    }
}
