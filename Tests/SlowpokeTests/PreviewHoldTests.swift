import Foundation
import TestSupport
import Testing

/// The preview plays a hold (issue 24, part 2): the held frame stays on screen and the audio is
/// silent, then the timeline goes on. In the serialized preview suite (it measures real time).
extension PreviewCommandTests {
    @Test func aFreezeShowsTheHeldFrameInSilenceThenPlaysOn() throws {
        let folder = try TemporaryFolder("preview-hold")
        // 6 s at 60 fps, each frame's index coded in its top row (PictureCode), a steady tone.
        let gen = TestSupport.root.appendingPathComponent("media/gen.py").path
        let clip = folder.file("tone.mp4")
        let made = try TestSupport.run(URL(fileURLWithPath: "/bin/bash"), ["-c", """
            set -euo pipefail
            python3 '\(gen)' frames 320 180 60 1 360 | ffmpeg -hide_banner -loglevel error -nostdin -y \
              -f rawvideo -pix_fmt yuv420p -s 320x180 -framerate 60 -i - -f lavfi -i 'sine=frequency=440:sample_rate=48000' \
              -t 6 -c:v libx264 -preset ultrafast -g 60 -bf 2 -pix_fmt yuv420p -c:a aac -ac 2 '\(clip.path)'
            """])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "tone.mp4", in: folder).status == 0)
        #expect(try slowpoke("freeze", "--at", "2", "--duration", "3", in: folder).status == 0)  // 2-5 holds frame 120

        let display = try VirtualDisplay()
        let session = try PreviewSession(["tone.slowpoke", "--start", "2.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        #expect(PictureCode.frameIndex(try session.screenshot()) == 120, "paused inside the hold")
        try session.press("space")
        usleep(1_200_000)
        let during = PictureCode.frameIndex(try session.screenshot())   // about 3.7 s: still held
        // On to timeline 6.6 s, by the player's clock: a second of the tone after the hold.
        session.waitForClock(6.6)
        #expect(session.quit() == 0, "\(session.stderr())")
        #expect(during == 120, "frame \(during) on screen during the hold")
        // After the hold (timeline 5 s on), the pictures presented are the source's again:
        // timeline t shows source t - 3 (the player's clock log; a screenshot timed on the wall
        // clock found the hold still on when a loaded machine's audio ran late).
        let log = try session.clockLog()
        let afterHold = log.filter { $0.kind == "frame" && $0.clock >= 5.1 }.compactMap { e in e.source.map { (clock: e.clock, source: $0) } }
        #expect(afterHold.count >= 5, "\(afterHold.count) pictures presented after the hold")
        #expect(afterHold.allSatisfy { abs($0.source - ($0.clock - 3)) < 0.05 }, "after the hold: \(afterHold.prefix(8))")

        // Heard from 2.5 s, where the player acted on space (its clock log): 2.5 s of silence
        // (the rest of the hold), then the tone; the hold's end found by the frames the player
        // played (silence SDL wrote on a loaded machine left out).
        let start = try #require(try session.keyFrames("playPause").first)
        let heard = try session.heardAudio()
        var holdEnd = start + 120_000
        for _ in 0..<4 { holdEnd += 120_000 - ClockEvent.played(from: start, to: holdEnd, in: log) }
        try #require(heard.count > holdEnd + 48000, "heard \(heard.count) frames")
        let silent = Signals.rms(heard[(start + 4800)..<(holdEnd - 9600)])
        // The tone's level where samples are not SDL's exact-zero silence.
        let tone = Signals.rms(ArraySlice(heard[(holdEnd + 19200)..<(holdEnd + 48000)].filter { $0 != 0 }))
        #expect(silent < 1e-4, "level during the hold \(silent)")
        #expect(tone > 0.05, "level after the hold \(tone)")
    }
}
