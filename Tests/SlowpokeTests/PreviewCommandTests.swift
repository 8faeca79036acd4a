import Composition
import Foundation
import TestSupport
import Testing

/// `slowpoke preview` driven like a user would: a real window on a private X server, real key
/// presses through xdotool, and the audio a user would hear captured by SDL's disk driver. The
/// checks read that audio, the screen and the saved document independently of slowpoke.
///
/// These tests measure real time (tempo, latency, A/V offset), so they must not share the two
/// cores with the rest of the suite: `make test` runs them on their own after everything else,
/// with SLOWPOKE_PREVIEW_TESTS=1. A plain `swift test` skips them. The preview tests that
/// measure no time are in ``PreviewScreenTests``, which runs beside the rest of the suite.
@Suite(.serialized, .enabled(if: PreviewTestGate.enabled))
struct PreviewCommandTests {
    /// The acceptance sequence of issue 6: play, →→ (2x), c, ← to 0.75x, [, wait, ], Enter, q.
    ///
    /// The issue's ladder is 1/32 … 1/2, 3/4, 1, 1.25, 1.5, 2, 4 … 32. To make "→→ (2x)" true the
    /// preview starts at `--rate 1.25` (→ 1.5, → 2). From 2x, three ← presses reach 1x, not the
    /// 0.75x the issue names, so the test presses ← four times (2 → 1.5 → 1.25 → 1 → 0.75).
    @Test func keysChangeTempoAndPitchAndTheEditIsSaved() throws {
        let folder = try TemporaryFolder("preview")
        let clip = try makeLongClip(seconds: 24, in: folder.url)
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--rate", "1.25", "--algorithm", "spectral"], in: folder.url, display: display)
        try session.waitUntilReady()

        // After each group of keys, the title shows the status (checked once the keys are in).
        var titles: [String] = []
        func settle(_ micros: UInt32) {
            usleep(200_000)
            titles.append(session.title())
            usleep(micros - 200_000)
        }
        // Each phase plays long enough for three beeps or more (two at 0.75x).
        try session.press("space")
        settle(2_600_000)
        try session.pressAll(["Right", "Right"])
        settle(2_600_000)
        try session.press("c")
        settle(2_600_000)
        try session.pressAll(["Left", "Left", "Left", "Left"])
        settle(1_000_000)
        try session.press("bracketleft")
        settle(2_000_000)
        try session.press("bracketright")
        settle(400_000)
        try session.press("Return")
        // The last title once it shows the marks cleared (or after 5 s: the check below then
        // fails on it). The phases before keep their lengths: the check asks 14 beeps before Enter.
        titles.append(session.waitForTitle { !$0.hasSuffix("]") })
        let expectedTitles = ["▶  1.25x  spectral  +0 st", "▶  2x  spectral  +0 st", "▶  2x  varispeed", "▶  0.75x  varispeed",
                              "▶  0.75x  varispeed", "▶  0.75x  varispeed", "▶  0.75x  varispeed"]
        for (title, expected) in zip(titles, expectedTitles) {
            #expect(title.hasPrefix("slowpoke — " + expected), "titles: \(titles)")
        }
        #expect(titles[4].hasSuffix(" –"), "after [, the title shows the range's start: \(titles[4])")
        #expect(titles[5].hasSuffix("]"), "after ], the title shows the range: \(titles[5])")
        #expect(!titles[6].hasSuffix("]"), "after Enter, the marks are cleared: \(titles[6])")
        let status = session.quit()
        let stderr = session.stderr()
        #expect(status == 0, "stderr: \(stderr)")

        // Where each key took effect: the disk audio frame the player had reached when it acted
        // on it (its clock log), not the frame the test saw before starting xdotool, which a
        // loaded machine can leave hundreds of milliseconds early.
        let play = try #require(try session.keyFrames("playPause").first)
        let fasters = try session.keyFrames("faster"), slowers = try session.keyFrames("slower")
        try #require(fasters.count == 2 && slowers.count == 4, "the clock log has \(fasters.count) → and \(slowers.count) ←")
        let faster = (first: fasters[0], last: fasters[1]), slower = (first: slowers[0], last: slowers[3])
        let chipmunk = try #require(try session.keyFrames("chipmunk").first)
        let markIn = try #require(try session.keyFrames("markStart").first)
        let markOut = try #require(try session.keyFrames("markEnd").first)
        let apply = try #require(try session.keyFrames("apply").first)
        let log = try session.clockLog()
        let heard = try session.heardAudio()
        // Leave each phase's first 150 ms out: a change takes up to 100 ms to be heard.
        let settle = 7200
        struct Phase { let name: String; let range: Range<Int>; let spacing: Double; let pitch: Double }
        let phases = [
            Phase(name: "1.25x spectral", range: (play + settle)..<faster.first, spacing: 1 / 1.25, pitch: 1000),
            Phase(name: "2x spectral", range: (faster.last + settle)..<chipmunk, spacing: 0.5, pitch: 1000),
            Phase(name: "2x varispeed", range: (chipmunk + settle)..<slower.first, spacing: 0.5, pitch: 2000),
            Phase(name: "0.75x varispeed", range: (slower.last + settle)..<apply, spacing: 1 / 0.75, pitch: 750),
        ]
        var onsetsBefore = 0
        for phase in phases {
            let (spacing, onsets) = Heard.beeps(heard, in: phase.range, log: log)
            #expect(onsets.count >= 2, "\(phase.name): \(onsets.count) beeps")
            // Tempo: the beeps are one source second apart, so they are 1/rate seconds apart.
            // 10%: neighbouring rungs of the ladder are 20% or more apart, and a busy machine can
            // make the audio underrun for a few ms (SDL then plays silence), which stretches a gap.
            #expect(abs(spacing - phase.spacing) / phase.spacing < 0.1, "\(phase.name): beeps \(spacing) s apart, expected \(phase.spacing)")
            // Pitch: constant under spectral, following the rate under varispeed.
            // A beep within 100 ms of the next key is left out: its pitch window would reach
            // past the key.
            // A beep whose window holds SDL's silence (an underrun) is left out.
            for onset in onsets where onset + 1200 + 4800 < phase.range.upperBound && !ClockEvent.silent(from: onset + 96, to: onset + 1120, in: log) {
                let f = Heard.pitch(heard, at: onset)
                #expect(abs(f - phase.pitch) / phase.pitch < 0.03, "\(phase.name): beep at \(Double(onset) / 48000) s is \(f) Hz, expected \(phase.pitch)")
            }
            onsetsBefore += onsets.count
        }

        // The composition time heard at a disk frame, from the beeps: beep k marks second k (an
        // onset within 0.25 s of the one before is the same beep, cut by an underrun's silence,
        // and that silence is left out of the time since the beep).
        var all: [Int] = []
        for onset in Signals.onsets(Array(heard[0..<apply]), threshold: 0.15) where onset - (all.last ?? -48000) >= 12000 { all.append(onset) }
        func heardTime(at frame: Int, rate: Double) -> Double {
            let k = all.lastIndex { $0 <= frame } ?? 0
            return Double(k) + Double(ClockEvent.played(from: all[k], to: frame, in: log)) / 48000 * rate
        }
        #expect(all.count >= 14, "beeps heard before Enter: \(all.count)")

        // The document holds the new scaled segment: the marked range at 0.75x.
        let document = folder.url.appendingPathComponent("long.slowpoke")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: document)) as? [String: Any])
        let history = try #require(json["history"] as? [String: Any])
        #expect(history["applied"] as? Int == 1)
        let entries = try #require(history["entries"] as? [[String: Any]])
        let edit = try #require(entries.first?["edit"] as? [String: Any])
        #expect(edit["op"] as? String == "scale")
        let range = try #require(edit["range"] as? [String: String])
        let start = seconds(range["start"]!), length = seconds(range["duration"]!)
        let newLength = seconds(try #require(edit["duration"] as? String))
        #expect(abs(newLength - length / 0.75) < 1e-9, "scaled to \(newLength) s from \(length) s")
        // The marks are the times heard when the player acted on [ and ] (40 ms: a block of the
        // device and the beeps' onsets; before the clock log this took 120 ms, the keys' wall-clock lag).
        let expectedStart = heardTime(at: markIn, rate: 0.75), expectedEnd = heardTime(at: markOut, rate: 0.75)
        #expect(abs(start - expectedStart) < 0.04, "mark in at \(start) s, heard \(expectedStart) s")
        #expect(abs(start + length - expectedEnd) < 0.04, "mark out at \(start + length) s, heard \(expectedEnd) s")
        let timeline = try #require(json["timeline"] as? [String: Any])
        let tracks = try #require(timeline["tracks"] as? [[String: Any]])
        for track in tracks {
            let segments = try #require(track["segments"] as? [[String: Any]])
            let scaled = segments.filter { $0["rate"] as? String == "0.75" }
            #expect(scaled.count == 1, "track \(track["id"] ?? "?"): \(segments.count) segments")
            if let target = scaled.first?["target"] as? [String: String] {
                #expect(abs(seconds(target["start"]!) - start) < 1e-9 && abs(seconds(target["duration"]!) - newLength) < 1e-9)
            }
        }
        // The command reports the saved edit.
        #expect(stderr.contains("saved: scale"), "stderr: \(stderr)")
        // And the document is sound for the other commands.
        let info = try TestSupport.run(TestSupport.slowpoke, ["history", document.path])
        #expect(info.status == 0 && info.stdout.contains("0.75x"), "\(info.stdout) \(info.stderr)")
    }

    /// A rate change reaches the ears within 100 ms: a steady tone under varispeed jumps from
    /// 440 Hz to 550 Hz at → (1 → 1.25x); the player's clock log tells where in the disk file it
    /// acted on the key, the file where the change is heard.
    @Test func aRateChangeIsHeardWithin100ms() throws {
        let folder = try TemporaryFolder("preview-latency")
        let tone = folder.file("tone.wav")
        try TestSupport.makeAudio("sine=frequency=440", seconds: 20, to: tone)
        let display = try VirtualDisplay()
        let session = try PreviewSession([tone.path, "--algorithm", "varispeed", "--play"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(500_000)
        try session.press("Right")
        usleep(700_000)
        #expect(session.quit() == 0)
        // Timed from the player acting on the key: the test's own view of the press (the file's
        // length around starting xdotool) was up to hundreds of ms off on a loaded machine.
        let pressed = try #require(try session.keyFrames("faster").first, "no → in the clock log")
        let heard = try session.heardAudio()
        // An empty capture would make the range below trap (0..<-1) and take the whole test
        // process down with signal 4: fail this test instead.
        try #require(heard.count > 48000, "heard \(heard.count) frames")
        // Rising zero crossings, to a fraction of a sample; the period between two is one cycle.
        var crossings: [Double] = []
        for i in 0..<(heard.count - 1) where heard[i] < 0 && heard[i + 1] >= 0 {
            crossings.append(Double(i) + Double(-heard[i] / (heard[i + 1] - heard[i])))
        }
        let periods = zip(crossings, crossings.dropFirst()).map { (at: $0.0, length: $0.1 - $0.0) }
        // The median period: a gap of SDL's silence (an underrun, on a loaded machine) makes one
        // period long, which put a mean at 249 Hz.
        func frequency(around frame: Int) -> Double {
            let near = periods.filter { abs($0.at - Double(frame)) < 2400 }.map(\.length).sorted()
            return near.isEmpty ? .nan : 48000 / near[near.count / 2]
        }
        #expect(abs(frequency(around: pressed - 4800) - 440) < 5)
        #expect(abs(frequency(around: heard.count - 4800) - 550) < 5)
        // The first of three cycles in a row shorter than the midpoint between 440 and 550 Hz.
        let midpoint = 48000 / 495.0
        let first = try #require(periods.indices.dropLast(2).first { i in
            periods[i].at > Double(pressed) - 9600 && (i..<(i + 3)).allSatisfy { periods[$0].length < midpoint }
        })
        let delay = (periods[first].at - Double(pressed)) / 48000
        print("rate change heard \(Int(delay * 1000)) ms after the player acted on →")
        #expect(delay < 0.1, "heard after \(delay) s")
        #expect(delay > 0, "heard before the key was pressed")
    }

    /// The window shows the video frame and the status overlay, and the video follows the audio:
    /// the frame on screen is the one for the composition time being heard.
    @Test func screenshotShowsTheFrameAndTheOverlayInSyncWithTheAudio() throws {
        let folder = try TemporaryFolder("preview-shot")
        let clip = try folder.copy(media: "clip60.mp4")
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--start", "3.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let png = ProcessInfo.processInfo.environment["SLOWPOKE_PREVIEW_SCREENSHOT"].map { URL(fileURLWithPath: $0) }
        let paused = try session.screenshot(to: png)
        // Paused at 3.5 s: frame 210 of the 60 fps clip, not flashing (luma 64 below the code).
        #expect(PictureCode.frameIndex(paused) == 210)
        let w = paused.width, h = paused.height
        let body = paused.luma[(h / 2) * w + w / 2]
        #expect(abs(Int(body) - 56) < 12, "picture luma \(body)")
        // The overlay: a dark status band with white text in it, above the timeline strip and
        // its row of times (44 px at the bottom).
        let band = (h - 44 - 24)..<(h - 44 - 8)
        var white = 0, dark = 0
        for y in band { for x in 0..<w { let v = paused.luma[y * w + x]; if v > 200 { white += 1 } else if v < 30 { dark += 1 } } }
        #expect(white > 150, "white text pixels in the overlay: \(white)")
        #expect(dark > w * band.count / 2, "dark overlay pixels: \(dark)")
        // h shows the key list over the picture, top left.
        try session.press("h")
        usleep(300_000)
        let help = try session.screenshot()
        var helpWhite = 0
        for y in 30..<200 { for x in 30..<300 where help.luma[y * w + x] > 200 { helpWhite += 1 } }
        #expect(helpWhite > 300, "white text pixels in the key list: \(helpWhite)")
        try session.press("h")

        // Play, and compare each picture presented with the time being heard then (AVSync).
        try session.press("space")
        usleep(3_000_000)
        #expect(session.quit() == 0)
        #expect(!session.stderr().contains("error"), "\(session.stderr())")
        let origin = try #require(try session.keyFrames("playPause").first, "no space in the clock log")
        let offsets = try AVSync.offsets(session, fps: 60, firstBeep: 4, origin: origin)
        try #require(offsets.count >= 40, "measured \(offsets.count) pictures")
        let sync = AVSync.summary(offsets)
        print(sync.line)
        // The offset (the median) is under 40 ms, and nine pictures in ten are within 60 ms.
        #expect(sync.median < 0.04, "A/V offsets: \(offsets)")
        #expect(sync.p90 < 0.06, "A/V offsets: \(offsets)")
    }

    /// The A/V measurement can fail: a player told to show its picture 100 ms behind the audio
    /// (SLOWPOKE_PREVIEW_VIDEO_LAG) is measured about 100 ms off, outside the bounds above.
    @Test func theAVMeasurementSeesAPictureShownLate() throws {
        let folder = try TemporaryFolder("preview-lag")
        let clip = try folder.copy(media: "clip60.mp4")
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--start", "3.5", "--play"], in: folder.url, display: display,
                                         environment: ["SLOWPOKE_PREVIEW_VIDEO_LAG": "0.1"])
        try session.waitUntilReady()
        usleep(1_500_000)
        #expect(session.quit() == 0)
        let offsets = try AVSync.offsets(session, fps: 60, firstBeep: 4, origin: 0)
        try #require(offsets.count >= 20, "measured \(offsets.count) pictures")
        let sync = AVSync.summary(offsets)
        print("shown 100 ms late: " + sync.line)
        #expect(sync.median > 0.07 && sync.median < 0.13, "A/V offsets: \(offsets)")
    }

    @Test func withoutAudioTheVideoPlaysOnTheWallClock() throws {
        let folder = try TemporaryFolder("preview-noaudio")
        let clip = try folder.copy(media: "noaudio.mp4")
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path], in: folder.url, display: display)
        try session.waitUntilReady()
        let first = PictureCode.frameIndex(try session.screenshot())
        try session.press("space")
        let started = Date()
        usleep(1_000_000)
        let shot = try session.screenshot()
        let elapsed = Date().timeIntervalSince(started)
        let fps = try #require(((try TestSupport.ffprobe(clip, ["-select_streams", "v:0", "-show_entries", "stream=r_frame_rate"])["streams"] as? [[String: Any]])?.first?["r_frame_rate"] as? String).map(seconds))
        let shown = Double(PictureCode.frameIndex(shot)) / fps
        #expect(session.quit() == 0)
        #expect(first == 0)
        #expect(shown > 0.7 && shown < elapsed + 0.1, "after \(elapsed) s of play the frame shown is at \(shown) s")
        #expect(session.heardFrames == 0, "a movie without audio plays none")
    }
}

/// Headless use and the long A/V check: in the same serialized suite, so that no two players
/// compete for the CPU.
extension PreviewCommandTests {
    /// `--no-video`: no window, keys from standard input, one status line per change on stderr
    /// (stderr is not a terminal here).
    @Test func noVideoReadsKeysFromTheTerminal() throws {
        let folder = try TemporaryFolder("preview-headless")
        let clip = try folder.copy(media: "clip60.mp4")
        let audio = folder.file("heard.raw")
        let process = Process()
        process.executableURL = TestSupport.slowpoke
        process.arguments = ["preview", clip.path, "--no-video", "--algorithm", "varispeed"]
        process.currentDirectoryURL = folder.url
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_AUDIODRIVER"] = "disk"
        environment["SDL_DISKAUDIOFILE"] = audio.path
        environment["DISPLAY"] = nil
        let clockLog = folder.file("clock.log")
        environment["SLOWPOKE_PREVIEW_CLOCK_LOG"] = clockLog.path
        process.environment = environment
        let input = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while PreviewSession.frames(in: audio, channels: 2) == 0 && Date() < deadline { usleep(20_000) }
        func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }
        send(" ")
        usleep(2_200_000)
        send("\u{1B}[C\u{1B}[C\u{1B}[C")  // → → →: 1 → 1.25 → 1.5 → 2
        usleep(1_800_000)
        send("q")
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("▶  1x  varispeed"), "\(stderr)")
        #expect(stderr.contains("▶  2x  varispeed"), "\(stderr)")
        // The timeline as a line of text under the status: one 1x section, the playhead in it.
        #expect(stderr.contains("█ 10 s") && stderr.contains("\n0 "), "\(stderr)")
        let data = try Data(contentsOf: audio)
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let heard = stride(from: 0, to: all.count - 1, by: 2).map { all[$0] }
        // Where the player acted on space and the last →, in the file (its clock log).
        let log = try ClockEvent.read(clockLog)
        let play = try #require(ClockEvent.keyFrames("playPause", in: log).first)
        let fasters = ClockEvent.keyFrames("faster", in: log)
        try #require(fasters.count == 3, "\(fasters.count) → in the clock log")
        let before = Heard.beeps(heard, in: play..<fasters[0], log: log)
        let after = Heard.beeps(heard, in: (fasters[2] + 7200)..<heard.count, log: log)
        #expect(abs(before.spacing - 1) < 0.1, "beeps \(before.spacing) s apart at 1x")
        #expect(abs(after.spacing - 0.5) < 0.05, "beeps \(after.spacing) s apart at 2x")
        if let onset = after.onsets.first { #expect(abs(Heard.pitch(heard, at: onset) - 2000) < 60) }
    }

    /// Five minutes at 1x on a 60 fps clip, then the A/V offset. Takes six minutes, so it runs
    /// only with SLOWPOKE_LONG_TESTS=1 (`make test-long`).
    @Test(.enabled(if: TestTier.isLong))
    func avOffsetAfterFiveMinutes() throws {
        let folder = try TemporaryFolder("preview-long")
        let clip = try makeLongClip(seconds: 320, in: folder.url)
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path], in: folder.url, display: display)
        try session.waitUntilReady()
        try session.press("space")
        usleep(305_000_000)
        #expect(session.quit() == 0)
        // The last five seconds' pictures: those presented after 300 s of audio.
        let origin = try #require(try session.keyFrames("playPause").first, "no space in the clock log")
        let offsets = try AVSync.offsets(session, fps: 60, firstBeep: 0, origin: origin).suffix(300)
        try #require(offsets.count >= 50, "measured \(offsets.count) pictures")
        let sync = AVSync.summary(Array(offsets))
        print("after 5 min: " + sync.line)
        #expect(sync.p90 < 0.04, "A/V offsets: \(offsets)")
    }
}
