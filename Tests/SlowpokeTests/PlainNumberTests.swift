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

/// A user who types fractions (`--rate 1/64`, `--at 100/3`) reads decimals back, in errors too.
@Suite struct TypedFractionTests {
    @Test func messagesRepeatTypedFractionsAsDecimals() throws {
        let folder = try TemporaryFolder("typed")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        // (arguments, exit status, a phrase the answer must hold)
        let commands: [([String], Int32, String)] = [
            (["open", "clip.mp4"], 0, "created"),
            (["scale", "--range", "1/3-2/3", "--rate", "1/3"], 0, "scale 0.333-0.667 to 1 s (0.333x)"),
            (["freeze", "--at", "1/7", "--duration", "1/7"], 0, "freeze the frame at 0.143 s for 0.143 s"),
            (["scale", "--range", "2-2.1", "--rate", "1/30"], 0, "(0.033x)"),
            (["reverse", "--range", "20/3-22/3"], 0, "reverse 6.667-7.333"),
            (["scale", "--range", "0.5-0.6", "--rate", "1/64"], 1, "rate 0.015625 is outside the supported 0.03125 to 32"),
            (["ramp", "--range", "1-2", "--from", "1/64", "--to", "1"], 1, "--from 0.015625 is outside"),
            (["scale", "--range", "2-5", "--rate", "1/3"], 1, "at 0.0111x, outside the supported 0.03125x to 32x"),
            (["scale", "--range", "1/3-100/3", "--rate", "2"], 1, "range 0.333-33.333 goes beyond the end of the timeline at"),
            (["remove", "--range", "4/3-4/3"], 1, "range 1.333-1.333 is empty; it starts and ends at 1.333 s"),
            (["insert-gap", "--at", "100/3", "--duration", "1/3"], 1, "--at 33.333 is after the end"),
            (["freeze", "--at", "100/3", "--duration", "1/3"], 1, "--at 33.333 is not before the end"),
            (["export", "-o", "x.mp4", "--fps", "5000/3"], 1, "1666.667 is outside"),
            (["info"], 0, "0.333x"), (["history"], 0, "0.333x"), (["verify"], 0, "checksum matches"),
        ]
        var said = ""
        for (arguments, status, phrase) in commands {
            let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            let text = result.stdout + result.stderr
            #expect(text.contains(phrase), "\(arguments): \(text)")
            said += text.replacingOccurrences(of: folder.url.path, with: "FOLDER")
        }
        // Help lines after a usage error document the syntax (`1/3`); every other line is checked.
        let lines = said.split(separator: "\n").filter { !$0.hasPrefix("Help:") }
        #expect(lines.count >= 30, "\(said)")
        let fraction = try NSRegularExpression(pattern: #"[0-9]+/[0-9]+"#)
        let found = lines.filter { fraction.firstMatch(in: String($0), range: NSRange($0.startIndex..., in: $0)) != nil }
        #expect(found.isEmpty, "\(found)")
    }
}
