import Foundation
import TestSupport
import Testing

/// Audio tracks, subtitles and HDR in the preview (issue 26, items 2 and 3), checked on screen
/// and in what was heard. The track switch is timed: in the serialized suite, so that no two
/// players share the CPU.
extension PreviewCommandTests {
    /// A movie with two audio tracks (440 Hz eng, 660 Hz fra, the second marked default) and an
    /// SRT cue at source 1.0-3.5 s (not marked default), whose first 4 s are slowed to 0.5x, so
    /// the cue plays at 2.0-7.0 s of the timeline. One session: the cue's text shows (after
    /// `s`) only while the cue is on, at its retimed place, and `s` hides and shows it again;
    /// playing, the default track is heard first, `t` switches to the other and back.
    @Test func audioTracksSwitchAndSubtitlesShowOnTheirRetimedCue() throws {
        let folder = try TemporaryFolder("preview-tracks")
        let srt = folder.file("cue.srt")
        try "1\n00:00:01,000 --> 00:00:03,500\nHELLO SUBTITLE\n\n".write(to: srt, atomically: true, encoding: .utf8)
        let clip = folder.file("tracks.mkv")
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=0x303030:size=320x240:rate=30:duration=10",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=10:sample_rate=48000",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=10:sample_rate=48000", "-i", srt.path,
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-ac", "2", "-c:s", "srt", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
            "-disposition:a:0", "0", "-disposition:a:1", "default", "-disposition:s:0", "0", "-y", clip.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let open = try TestSupport.run(TestSupport.slowpoke, ["open", clip.path], in: folder.url)
        try #require(open.status == 0, "open: \(open.stderr)")
        let scale = try TestSupport.run(TestSupport.slowpoke, ["scale", "--range", "0-4", "--rate", "0.5"], in: folder.url)
        try #require(scale.status == 0, "scale: \(scale.stderr)")
        let document = folder.file("tracks.slowpoke")

        let display = try VirtualDisplay()
        // 1.5 s on the timeline is source 0.75 s: before the cue.
        let session = try PreviewSession([document.path, "--start", "1.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        /// White (text) pixels in the subtitle band: above the status band, which is above the
        /// timeline strip and its row of times (44 px).
        func subtitlePixels(_ shot: (luma: [UInt8], width: Int, height: Int)) -> Int {
            var white = 0
            for y in (shot.height - 44 - 90)..<(shot.height - 44 - 38) {
                for x in 0..<shot.width where shot.luma[y * shot.width + x] > 200 { white += 1 }
            }
            return white
        }
        /// The subtitle band after `key`: once it shows what `done` asks (or after 3 s: the
        /// checks below then fail on it); with no `done`, 400 ms after the key (where nothing
        /// is to show, there is nothing to wait for).
        func after(_ key: String, until done: ((Int) -> Bool)? = nil) throws -> Int {
            try session.press(key)
            guard let done else {
                usleep(400_000)
                return subtitlePixels(try session.screenshot())
            }
            return subtitlePixels(try session.waitForScreenshot { done(subtitlePixels($0)) })
        }
        let hiddenBefore = subtitlePixels(try session.screenshot())
        let shownBefore = try after("s")
        // l: 6.5 s on the timeline, source 3.25 s: the cue is on (unedited, 6.5 s would be past it).
        let shownDuring = try after("l") { $0 > 150 }
        let hiddenDuring = try after("s") { $0 == 0 }
        let shownAgain = try after("s") { $0 > 150 }
        print("subtitle band white pixels: hidden \(hiddenBefore), shown before the cue \(shownBefore), during \(shownDuring), hidden \(hiddenDuring), shown again \(shownAgain)")
        #expect(hiddenBefore == 0 && shownBefore == 0, "before the cue: \(hiddenBefore), \(shownBefore)")
        #expect(shownDuring > 150 && shownAgain > 150, "the cue's text: \(shownDuring), \(shownAgain) white pixels")
        #expect(hiddenDuring == 0, "hidden by s: \(hiddenDuring)")

        // Play from 6.5 s: the default track (660 Hz), t (440 Hz), t (660 Hz again). The next
        // track is made off the player's thread (its slowed section rendered), and plays once
        // ready: the title says when.
        let titleBefore = session.title()
        func waitForTitle(_ text: String) -> String {
            let deadline = Date().addingTimeInterval(3)
            var title = session.title()
            while !title.contains(text) && Date() < deadline {
                usleep(50_000)
                title = session.title()
            }
            return title
        }
        try session.press("space")
        usleep(1_000_000)
        try session.press("t")
        let titleAfter = waitForTitle("audio 1/2 eng")
        usleep(800_000)
        try session.press("t")
        let titleBack = waitForTitle("audio 2/2 fra")
        usleep(800_000)
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        // Where the player acted on space and each t, and where it began to play each new track,
        // in the disk file (its clock log); the file's end is the last event's.
        let log = try session.clockLog()
        let play = try #require(ClockEvent.keyFrames("playPause", in: log).first)
        let presses = ClockEvent.keyFrames("nextAudioTrack", in: log), switches = log.filter { $0.kind == "audio" }.map(\.written)
        try #require(presses.count == 2 && switches.count == 2, "clock log: \(presses.count) t, \(switches.count) switches")
        let first = presses[0], second = presses[1]
        let end = try #require(log.last?.written)
        #expect(titleBefore.contains("audio 2/2 fra"), "title: \(titleBefore)")
        #expect(titleAfter.contains("audio 1/2 eng"), "title: \(titleAfter)")
        #expect(titleBack.contains("audio 2/2 fra"), "title: \(titleBack)")
        let heard = try session.heardAudio()
        // The tone in 4096-sample windows every 1024 samples.
        let hop = 1024
        let tone: [(at: Int, frequency: Double)] = stride(from: play, to: min(end, heard.count) - 4096, by: hop).map {
            ($0, Signals.dominantFrequency(heard, from: $0, count: 4096))
        }
        func matches(_ f: Double, _ expected: Double) -> Bool { abs(f - expected) < 15 }
        // Between two presses: the old tone until the switch, the new one from it on (a window
        // straddling the switch may show either). On a loaded machine the audio can underrun for
        // a few ms (SDL plays silence), which moves a window's peak (a silent window has none:
        // NaN, never turned into an Int): nine in ten must match.
        var checked = 0, wrong: [String] = [], delays: [Double] = []
        // A window holding silence SDL wrote where the player's queue ran dry (its clock log
        // tells) is the machine's, not the track's: left out, and counted.
        var underrun = 0
        func check(_ window: (at: Int, frequency: Double), _ expected: Double, _ what: String) {
            if ClockEvent.silent(from: window.at, to: window.at + 4096, in: log) {
                underrun += 1
                return
            }
            checked += 1
            if !matches(window.frequency, expected) { wrong.append("\(what) at \(Double(window.at) / 48000) s: \(window.frequency.rounded()) Hz, not \(expected)") }
        }
        var madeIn: [Double] = []
        for (from, switched, to, old, new) in [(first, switches[0], second, 660.0, 440.0), (second, switches[1], end, 440, 660)] {
            let span = tone.filter { $0.at >= from - 4096 && $0.at + 4096 <= to - 2400 }
            guard let switchIndex = span.firstIndex(where: { matches($0.frequency, new) }) else {
                Issue.record("no \(new) Hz heard after t at \(Double(from) / 48000) s: \(span.map(\.frequency))")
                continue
            }
            // Heard once the player switched: the window that first has the new tone ends
            // after the switch and starts at most 100 ms after it (queue, engine latency, a hop).
            let delay = Double(span[switchIndex].at >= switched ? ClockEvent.played(from: switched, to: span[switchIndex].at, in: log)
                                                                : span[switchIndex].at - switched) / 48000
            delays.append(delay)
            madeIn.append(Double(switched - from) / 48000)
            for (k, window) in span.enumerated() {
                if k + 4 < switchIndex { check(window, old, "before the switch") }
                if k >= switchIndex { check(window, new, "after the switch") }
            }
            #expect(delay > -4096.0 / 48000 && delay < 0.1, "\(new) Hz heard \(delay) s after the player switched to it")
            // Making the track renders the slowed section first, off the player's thread: that
            // is the machine's speed (a debug build took 1.3-2.2 s on a 2-core machine at load 20+).
            #expect(Double(switched - from) / 48000 < 4, "the track was made \(Double(switched - from) / 48000) s after t")
        }
        for window in tone where window.at >= play + 7200 && window.at + 4096 <= first { check(window, 660, "the default track") }
        print("tracks made \(madeIn.map { Int($0 * 1000) }) ms after t, heard \(delays.map { Int($0 * 1000) }) ms after the switch (a window's start); \(wrong.count) of \(checked) windows off, \(underrun) left out (underrun)")
        #expect(checked >= 50, "measured \(checked) windows (\(underrun) left out)")
        #expect(wrong.count * 10 <= checked, "\(wrong)")
    }
}

/// HDR clips tone-mapped on screen: paused pictures, in PreviewScreenTests beside the rest of the
/// suite.
extension PreviewScreenTests {
    /// A PQ and an HLG clip (10-bit HEVC, BT.2020) of the same picture as a BT.709 one show about
    /// as bright as it: tone-mapped, not the dim, washed-out picture of a plain conversion. The
    /// overlay says the source is HDR.
    @Test func hdrClipsShowWithSDRBrightness() throws {
        let folder = try TemporaryFolder("preview-hdr")
        let picture = "testsrc2=size=320x240:rate=30:duration=2"
        let sdr = folder.file("sdr.mp4")
        var made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", picture, "-pix_fmt", "yuv420p", "-c:v", "libx264",
                                                   "-preset", "ultrafast", "-color_primaries", "bt709", "-color_trc", "bt709",
                                                   "-colorspace", "bt709", "-y", sdr.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        /// Mean luma of the frame at 1 s on screen, above the status band and the strip, and the window title.
        func shown(_ clip: URL) throws -> (mean: Double, title: String) {
            let display = try VirtualDisplay()
            let session = try PreviewSession([clip.path, "--start", "1"], in: folder.url, display: display)
            try session.waitUntilReady()
            usleep(100_000)
            let shot = try session.screenshot()
            let title = session.title()
            #expect(session.quit() == 0, "stderr: \(session.stderr())")
            let rows = shot.luma[0..<((shot.height - 44 - 40) * shot.width)]
            return (rows.reduce(0) { $0 + Double($1) } / Double(rows.count), title)
        }
        /// ffmpeg's plain conversion of the frame at 1 s to 8-bit luma: no tone mapping.
        func plainMean(_ clip: URL) throws -> Double {
            let raw = folder.file("plain-\(UUID().uuidString).gray")
            let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", clip.path, "-vf", "select=eq(n\\,30),format=gray",
                                                         "-frames:v", "1", "-f", "rawvideo", "-y", raw.path])
            try #require(result.status == 0, "ffmpeg: \(result.stderr)")
            let luma = [UInt8](try Data(contentsOf: raw))
            return luma.reduce(0) { $0 + Double($1) } / Double(max(1, luma.count))
        }
        let reference = try shown(sdr)
        let plainReference = try plainMean(sdr)
        #expect(!reference.title.contains("HDR"), "title: \(reference.title)")
        for (transfer, name) in [("smpte2084", "PQ"), ("arib-std-b67", "HLG")] {
            let clip = folder.file("\(name).mp4")
            made = try TestSupport.encodeHDR(picture, transfer: transfer, to: clip)
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
            let hdr = try shown(clip)
            let plain = try plainMean(clip) / plainReference
            print("\(name): mean luma on screen \(hdr.mean) against \(reference.mean) for BT.709 (\(hdr.mean / reference.mean)); a plain conversion gives \(plain) of it")
            #expect(abs(hdr.mean / reference.mean - 1) < 0.15, "\(name): mean luma \(hdr.mean), BT.709 \(reference.mean)")
            // The check can fail: without tone mapping the picture is well outside it.
            #expect(abs(plain - 1) > 0.15, "\(name): a plain conversion gives \(plain) of the BT.709 luma")
            #expect(hdr.title.contains("HDR \(name) → SDR"), "title: \(hdr.title)")
        }
    }
}
