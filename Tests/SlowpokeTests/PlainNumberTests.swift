import Foundation
import TestSupport
import Testing

/// Tables and messages show decimals (`25.991 s`, `29.97 fps`), never the exact fractions that
/// documents and `--json` keep (`95516/3675 s`, `30000/1001 fps`).
@Suite struct PlainNumberTests {
    /// A fraction of seconds or frames: `95516/3675 s`, `30000/1001 fps`, `2839/768x`.
    static func fractions(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\b[0-9]+/[0-9]+ ?(s|fps|x|\([0-9.]+\) fps)\b"#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    @Test func tablesAndMessagesShowNoFraction() throws {
        let folder = try TemporaryFolder("plain")
        try folder.copy(media: "ntsc2997.mp4", as: "clip.mp4")
        var said = ""
        // A ramp's length (2839/768 s), a 1/3 rate, 30000/1001 fps, a batch row and a verify.
        let recipe = #"{"output_dir": "out", "edits": [{"scale": {"range": "0.5-1", "rate": "1/3"}}], "movies": ["clip.mp4"]}"#
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let commands: [[String]] = [
            ["open", "clip.mp4"], ["ramp", "--range", "0-1", "--from", "1", "--to", "0.25"],
            ["scale", "--range", "1.5-1.7", "--rate", "1/3"], ["info"], ["history"], ["verify"],
            ["export", "--dry-run"], ["export", "-o", "cfr.mp4", "--fps", "30000/1001", "--progress", "none"],
            ["batch", "recipe.json", "--progress", "none"],
        ]
        for arguments in commands {
            let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            said += result.stdout + result.stderr
        }
        #expect(said.count > 1000, "\(said)")
        #expect(said.contains("29.97 fps"), "\(said)")
        #expect(Self.fractions(in: said).isEmpty, "\(Self.fractions(in: said))\n\(said)")
        // The exact values stay in --json.
        let json = try TestSupport.run(TestSupport.slowpoke, ["info", "--json"], in: folder.url)
        #expect(!Self.fractions(in: json.stdout.replacingOccurrences(of: "\"", with: " s ")).isEmpty)
    }
}
