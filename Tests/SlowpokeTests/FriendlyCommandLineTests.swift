import Foundation
import TestSupport
import Testing

/// The time syntax other tools use, the words they use, and mistakes named first.
@Suite struct FriendlyCommandLineTests {
    @Test(arguments: [
        ("3.2s-5s", "scale 3.2-5 to 7.2 s (0.25x)"),
        ("3200ms-5000ms", "scale 3.2-5 to 7.2 s (0.25x)"),
        ("0m3.2s-0m5s", "scale 3.2-5 to 7.2 s (0.25x)"),
        ("end-2s-end", "scale 8-10 to 8 s (0.25x)"),
        ("end-5-end", "scale 5-10 to 20 s (0.25x)"),
        ("25%-50%", "scale 2.5-5 to 10 s (0.25x)"),
        ("00:00:03.200-5", "scale 3.2-5 to 7.2 s (0.25x)"),
    ])
    func rangesReadAsOtherToolsWriteThem(_ range: String, _ said: String) throws {
        let folder = try folderWithDocument()
        let result = try slowpoke("scale", "--range", range, "--speed", "0.25", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(said + ";"), "\(result.stdout)")
    }

    @Test(arguments: ["3x-4", "1m1h-end", "5s3m-end", "1.2.3s-end"])
    func malformedUnitsAreRefused(_ range: String) throws {
        let folder = try folderWithDocument()
        let result = try slowpoke("scale", "--range", range, "--rate", "0.5", in: folder)
        #expect(result.status != 0 && result.stderr.contains("is not a time"), "\(result.stderr)")
    }

    @Test func misspeltCommandsAndOptionsAreNamedFirst() throws {
        let folder = try folderWithDocument()
        let command = try slowpoke("exprt", in: folder)
        #expect(command.status == 64)
        #expect(command.stderr.hasPrefix("slowpoke: error: slowpoke has no command 'exprt'; did you mean 'export'?"), "\(command.stderr)")
        // Not "Missing expected argument '--range'".
        let option = try slowpoke("scale", "--rnage", "1-2", "--rate", "2", in: folder)
        #expect(option.status == 64)
        #expect(option.stderr.hasPrefix("slowpoke: error: slowpoke scale has no option '--rnage'; did you mean '--range'?"), "\(option.stderr)")
        // --speed is --rate's other name; both would silently take the last.
        let both = try slowpoke("scale", "--range", "1-2", "--rate", "0.5", "--speed=2", in: folder)
        #expect(both.status == 64 && both.stderr.contains("both --rate and --speed"), "\(both.stderr)")
        let nested = try slowpoke("otio", "exprot", in: folder)
        #expect(nested.status == 64 && nested.stderr.contains("did you mean 'export'?"), "\(nested.stderr)")
    }

    @Test func errorsAreJSONUnderProgressJSON() throws {
        let folder = try folderWithDocument()
        for arguments in [["export", "--progress", "json", "--bogus"], ["export", "--progress", "json", "-o", "clip.mp4"]] {
            let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
            #expect(result.status != 0)
            let lines = result.stderr.split(separator: "\n")
            #expect(!lines.isEmpty)
            for line in lines {
                let event = try json(String(line))
                #expect(event["event"] as? String == "error", "\(line)")
            }
        }
    }

    @Test func aScaleOverAScaleSaysTheRateItMade() throws {
        let folder = try folderWithDocument()
        #expect(try slowpoke("scale", "--range", "3.2-5", "--rate", "0.25", in: folder).status == 0)
        let again = try slowpoke("scale", "--range", "3.2-10.4", "--rate", "0.25", in: folder)
        #expect(again.stdout.hasSuffix("; now 0.0625x there: scales multiply; undo to go back\n"), "\(again.stdout)")
        let fresh = try slowpoke("scale", "--range", "0-1", "--rate", "0.5", in: folder)
        #expect(!fresh.stdout.contains("multiply"), "\(fresh.stdout)")
    }

    /// Without a display SDL would open an invisible window whose keys never arrive.
    @Test func aPreviewWithoutADisplayIsRefusedWithTheHint() throws {
        let folder = try folderWithDocument()
        let result = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "SDL_VIDEODRIVER", TestSupport.slowpoke.path, "preview", "clip.mp4"],
                                         in: folder.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("there is no display to show the preview on") && result.stderr.contains("--no-video"), "\(result.stderr)")
    }
}
