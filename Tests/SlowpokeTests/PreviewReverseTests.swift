import Foundation
import TestSupport
import Testing

/// The preview plays backwards (issue 42, item 5): a reversed range shows its frames last to
/// first as the clock runs on, and `J` plays the timeline backwards from anywhere, picture and
/// sound. In the serialized preview suite (it measures real time).
extension PreviewCommandTests {
    /// 6 s at 60 fps, each frame's index in its top row, over a sweep rising 300 Hz a second
    /// from 200 Hz: the frame shows where the picture is, the pitch where the sound is.
    func makeSweepClip(in folder: TemporaryFolder) throws {
        let gen = TestSupport.root.appendingPathComponent("media/gen.py").path
        let made = try TestSupport.run(URL(fileURLWithPath: "/bin/bash"), ["-c", """
            set -euo pipefail
            python3 '\(gen)' frames 320 180 60 1 360 | ffmpeg -hide_banner -loglevel error -nostdin -y \
              -f rawvideo -pix_fmt yuv420p -s 320x180 -framerate 60 -i - \
              -f lavfi -i 'aevalsrc=0.5*sin(2*PI*(200*t+150*t*t)):s=48000:d=6' \
              -t 6 -c:v libx264 -preset ultrafast -g 60 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2 '\(folder.file("sweep.mp4").path)'
            """])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "sweep.mp4", in: folder).status == 0)
    }

    @Test func shiftJPlaysBackwardsPictureAndSound() throws {
        let folder = try TemporaryFolder("preview-backwards")
        try makeSweepClip(in: folder)
        let display = try VirtualDisplay()
        let session = try PreviewSession(["sweep.slowpoke", "--start", "4"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let paused = PictureCode.frameIndex(try session.screenshot())
        try session.press("shift+j")
        usleep(1_000_000)
        let first = PictureCode.frameIndex(try session.screenshot())   // about 3 s: frame 180
        usleep(800_000)
        let second = PictureCode.frameIndex(try session.screenshot())  // about 2.2 s
        let title = session.title()
        #expect(session.quit() == 0, "\(session.stderr())")
        #expect(paused == 240, "paused at 4 s on frame \(paused)")
        #expect(first > 150 && first < 225, "frame \(first) a second after J")
        #expect(second > 30 && second < first - 20, "frame \(second), then \(first): not backwards")
        #expect(title.contains("◀"), "status \(title)")
        // Heard: the sweep falls. 0.3 s after J (where the player acted on it: its clock log)
        // the sound is at about 3.7 s (1310 Hz), 0.9 s after at about 3.1 s (1130 Hz).
        let start = try #require(try session.keyFrames("playBackwards").first)
        let heard = try session.heardAudio()
        try #require(heard.count > start + 48000, "heard \(heard.count) frames")
        let early = Signals.dominantFrequency(heard, from: start + 12000, count: 4096)
        let late = Signals.dominantFrequency(heard, from: start + 40000, count: 4096)
        print("backwards: frames \(paused) \(first) \(second); pitch \(early) Hz then \(late) Hz")
        #expect(early > late + 100, "the pitch went \(early) Hz to \(late) Hz: the sweep does not fall")
        #expect(early > 1150 && early < 1500 && late > 950 && late < 1300, "pitch \(early) Hz then \(late) Hz")
    }

    @Test func aReversedRangeShowsItsFramesLastToFirst() throws {
        let folder = try TemporaryFolder("preview-reversed")
        try makeSweepClip(in: folder)
        #expect(try slowpoke("reverse", "--range", "1-5", in: folder).status == 0)
        let display = try VirtualDisplay()
        let session = try PreviewSession(["sweep.slowpoke", "--start", "1.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        // Timeline 1.5 s shows source 4.5 s backwards: the frame before it, 269.
        let paused = PictureCode.frameIndex(try session.screenshot())
        try session.press("space")
        usleep(1_000_000)
        let first = PictureCode.frameIndex(try session.screenshot())   // timeline 2.5 s: source 3.5 s
        usleep(800_000)
        let second = PictureCode.frameIndex(try session.screenshot())  // timeline 3.3 s: source 2.7 s
        #expect(session.quit() == 0, "\(session.stderr())")
        // Heard: the sweep falls inside the range. 0.3 s after space (where the player acted
        // on it) the sound is at source 4.2 s (1460 Hz), 0.9 s after at 3.6 s (1280 Hz).
        let start = try #require(try session.keyFrames("playPause").first)
        let heard = try session.heardAudio()
        try #require(heard.count > start + 48000, "heard \(heard.count) frames")
        let early = Signals.dominantFrequency(heard, from: start + 12000, count: 4096)
        let late = Signals.dominantFrequency(heard, from: start + 40000, count: 4096)
        print("reversed range: frames \(paused) \(first) \(second); pitch \(early) Hz then \(late) Hz")
        #expect(early > late + 80, "the pitch went \(early) Hz to \(late) Hz: the sweep does not fall")
        #expect(early > 1300 && early < 1600 && late > 1100 && late < 1450, "pitch \(early) Hz then \(late) Hz")
        #expect(paused == 269, "paused at 1.5 s on frame \(paused)")
        #expect(first > 180 && first < 240, "frame \(first) a second later")
        // (Screenshots land late on a loaded machine: later, not earlier, than asked.)
        #expect(second >= 60 && second < first - 20, "frame \(second), then \(first): not backwards")
    }
}
