import Foundation
import TestSupport
import Testing

/// The preview's command line, without a display.
@Suite struct PreviewCLITests {
    @Test func missingAndUnreadableFilesGiveAClearError() throws {
        let folder = try TemporaryFolder("preview-errors")
        let missing = try TestSupport.run(TestSupport.slowpoke, ["preview", "nothing.mp4", "--no-video"], in: folder.url)
        #expect(missing.status == 1)
        #expect(missing.stderr == "slowpoke: error: cannot open nothing.mp4: no such file\n", "\(missing.stderr)")
        try Data("not a movie".utf8).write(to: folder.file("junk.mp4"))
        let junk = try TestSupport.run(TestSupport.slowpoke, ["preview", "junk.mp4", "--no-video"], in: folder.url)
        #expect(junk.status == 1)
        #expect(junk.stderr.hasPrefix("slowpoke: error: ") && junk.stderr.contains("junk.mp4"), "\(junk.stderr)")
        #expect(try folder.listing() == ["junk.mp4"], "no document is left behind")
    }

    /// A display that DISPLAY names but that refuses the connection is tried again for about a
    /// second (an X server starting, or resetting as its last client leaves, answers a moment
    /// later: under Xvfb that failed about one start in forty), then named in the error. Before,
    /// the preview gave up at once and said to set DISPLAY, which was set.
    @Test func aDisplayThatRefusesIsTriedForASecondThenNamed() throws {
        let folder = try TemporaryFolder("preview-refused")
        let clip = try folder.copy(media: "noaudio.mp4")
        // A display number no server here uses (Xvfb -displayfd picks the lowest free ones).
        let display = ":\(Int.random(in: 900..<990))"
        let started = Date()
        let run = try TestSupport.run(TestSupport.slowpoke, ["preview", clip.path], in: folder.url,
                                      environment: ["DISPLAY": display, "SDL_AUDIODRIVER": "dummy"])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("slowpoke: error: could not connect to the display \(display)"), "\(run.stderr)")
        #expect(run.stderr.contains("--no-video"), "\(run.stderr)")
        #expect(seconds > 0.9, "gave up after \(seconds) s")
    }

    @Test func helpListsTheKeys() throws {
        let help = try TestSupport.run(TestSupport.slowpoke, ["preview", "--help"])
        for key in ["space", "← / →", "↑ / ↓", "chipmunk", "[ / ]", "Enter", "j / l", ", / .", "q / Esc", "undo"] {
            #expect(help.stdout.contains(key), "--help lacks \(key)")
        }
    }
}
