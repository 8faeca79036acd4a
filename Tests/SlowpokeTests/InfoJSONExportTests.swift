import Foundation
import TestSupport
import Testing

/// `info --json` says in advance what the text `info` says about the default export: the fit
/// to whole audio frames (issue 38) and what the cuts re-encode (issue 41).
@Suite struct InfoJSONExportTests {
    @Test func theFitAndTheCutsAreInTheJSONAsInTheText() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("scale", "--range", "1-2", "--rate", "0.3", in: folder).status == 0)
        #expect(try slowpoke("remove", "--range", "3.1-3.5", in: folder).status == 0)
        let text = try slowpoke("info", in: folder).stdout
        let info = try json(try slowpoke("info", "--json", in: folder).stdout)
        let fit = try #require(info["exportFit"] as? [String: Any], "\(info.keys)")
        let fitted = try #require(fit["fittedDuration"] as? String), edited = try #require(fit["duration"] as? String)
        #expect(fit["codec"] as? String == "AAC" && fit["samplesPerFrame"] as? Int == 1024)
        #expect(edited == info["duration"] as? String)
        #expect(fitted != edited && (fit["segmentsMoved"] as? Int ?? 0) >= 1)
        let cuts = try #require(info["exportCuts"] as? [String: Any])
        let reencoded = try #require(cuts["reencodedFrames"] as? Int), copied = try #require(cuts["copiedFrames"] as? Int)
        #expect(cuts["cuts"] as? Int == 1 && reencoded > 0 && copied > 0)
        #expect(text.contains("\(reencoded) frames re-encoded at 1 cut; \(copied) copied"), "\(text)")
        #expect(text.contains("fitted to whole AAC frames"), "\(text)")
        // An untouched timeline: neither.
        let plain = try folderWithDocument()
        let untouched = try json(try slowpoke("info", "--json", in: plain).stdout)
        #expect(untouched["exportFit"] == nil && untouched["exportCuts"] == nil)
    }
}
