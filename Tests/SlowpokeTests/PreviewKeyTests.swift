import Foundation
import TestSupport
import Testing

/// Every key of the preview driven end to end (issue 26, item 5), checked by what the user sees
/// or hears: the painted frame number, the clock in the overlay, the pitch of the beeps, the
/// saved document. (`t` and `s` are in PreviewTrackTests, space ← → c [ ] Enter in
/// keysChangeTempoAndPitchAndTheEditIsSaved.) One session, to keep the real-time suite short.
extension PreviewCommandTests {
    @Test func everyKeyDoesWhatItSaysOnScreenInTheAudioAndInTheDocument() throws {
        let folder = try TemporaryFolder("preview-keys")
        // The 24 s clip of keysChangeTempoAndPitchAndTheEditIsSaved, made once for both.
        let clip = try makeLongClip(seconds: 24, in: folder.url)
        let display = try VirtualDisplay()
        // Paused at 3.5 s: frame 210 of the 60 fps picture code.
        let session = try PreviewSession([clip.path, "--start", "3.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        func press(_ key: String, wait: UInt32 = 350_000) throws {
            try session.press(key)
            usleep(wait)
        }
        func frame() throws -> Int { PictureCode.frameIndex(try session.screenshot()) }
        /// The clock in the overlay (the title carries the same status line), in seconds.
        func clock() -> Double {
            let title = session.title()
            guard let slash = title.range(of: " / ") else { return .nan }
            let text = title[..<slash.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            let parts = text.split(separator: ":")
            guard parts.count == 2, let m = Double(parts[0]), let s = Double(parts[1]) else { return .nan }
            return m * 60 + s
        }

        // . and , step one frame (paused); l and j seek 5 s.
        var frames = [try frame()]
        var clocks = [clock()]
        for key in ["period", "period", "comma", "l", "j"] {
            try press(key)
            frames.append(try frame())
            clocks.append(clock())
        }
        print("frames after . . , l j: \(frames), clocks \(clocks)")
        #expect(frames == [210, 211, 212, 211, 511, 211], "painted frames: \(frames)")
        let expectedClocks = [3.5, 3.517, 3.533, 3.517, 8.517, 3.517]
        for (seen, expected) in zip(clocks, expectedClocks) {
            #expect(abs(seen - expected) < 0.0015, "overlay clocks \(clocks), expected \(expectedClocks)")
        }

        // h shows the key list over the picture, top left; h again hides it (paused on a frame
        // that does not flash).
        try press("h")
        let help = try session.screenshot()
        try press("h")
        let noHelp = try session.screenshot()

        // Playing: ↑ one semitone up, ↓↓ one down, a to spectral (the pitch kept).
        try session.press("space")
        usleep(1_600_000)
        try session.press("Up")
        usleep(250_000)
        let titleUp = session.title()
        usleep(1_400_000)
        try session.pressAll(["Down", "Down"])
        usleep(250_000)
        let titleDown = session.title()
        usleep(1_400_000)
        try session.press("a")
        usleep(250_000)
        let titleStretch = session.title()
        usleep(1_400_000)
        // An edit to undo: ← (0.75x), [ ], Enter; then u.
        try session.press("Left")
        try press("bracketleft", wait: 600_000)
        try press("bracketright", wait: 100_000)
        try press("Return", wait: 600_000)
        let document = folder.file("long.slowpoke")
        func applied() throws -> (count: Int?, scaled: Int) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: document)) as? [String: Any])
            let history = json["history"] as? [String: Any]
            let tracks = (json["timeline"] as? [String: Any])?["tracks"] as? [[String: Any]] ?? []
            let scaled = tracks.flatMap { ($0["segments"] as? [[String: Any]]) ?? [] }.filter { $0["rate"] as? String == "0.75" }.count
            return (history?["applied"] as? Int, scaled)
        }
        let edited = try applied()
        try press("u", wait: 600_000)
        let undone = try applied()
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        let stderr = session.stderr()

        // The preview starts with export's algorithm (spectral); a switches to the other one.
        #expect(titleUp.contains("spectral  +1 st"), "after ↑: \(titleUp)")
        #expect(titleDown.contains("spectral  -1 st"), "after ↓↓: \(titleDown)")
        #expect(titleStretch.contains("timeDomain  -1 st"), "after a: \(titleStretch)")
        // Where the player acted on each key, in the disk file (its clock log).
        let log = try session.clockLog()
        func at(_ key: String) throws -> [Int] {
            let frames = ClockEvent.keyFrames(key, in: log)
            try #require(!frames.isEmpty, "no \(key) in the clock log")
            return frames
        }
        let play = try at("playPause")[0], up = try at("pitchUp")[0], downs = try at("pitchDown")
        let down = (first: downs[0], last: downs[downs.count - 1]), stretch = try at("toggleStretch")[0], slower = try at("slower")[0]
        let heard = try session.heardAudio()
        let semitone = pow(2, 1.0 / 12)
        var measured = 0, silent = 0
        for (name, range, pitch) in [("1x", (play + 7200)..<up, 1000.0), ("↑", (up + 7200)..<down.first, 1000 * semitone),
                                     ("↓↓", (down.last + 7200)..<stretch, 1000 / semitone),
                                     ("a", (stretch + 7200)..<slower, 1000 / semitone)] {
            let (_, onsets) = Heard.beeps(heard, in: range)
            // A beep within 100 ms of the next press is left out (its pitch window could hold the change).
            for onset in onsets where onset + 1200 + 4800 < range.upperBound {
                // On a loaded machine the audio can underrun (SDL plays silence): a beep whose
                // pitch window is silent is counted, not measured.
                let window = heard[(onset + 96)..<(onset + 96 + 1024)]
                guard (window.reduce(0) { $0 + $1 * $1 } / 1024).squareRoot() > 0.02,
                      !ClockEvent.silent(from: onset + 96, to: onset + 96 + 1024, in: log) else {
                    silent += 1
                    continue
                }
                let f = Heard.pitch(heard, at: onset)
                #expect(abs(f - pitch) / pitch < 0.025, "\(name): beep at \(Double(onset) / 48000) s is \(f) Hz, expected \(pitch)")
                measured += 1
            }
        }
        // One semitone is 6%: the 2.5% bound tells each phase from its neighbours. In the whole
        // preview suite 3 of 6 beeps fell in underrun silence twice, on a quiet machine too
        // (alone, none did): at least 3 measured, and at least 5 heard or counted.
        #expect(measured >= 3 && measured + silent >= 5, "beeps measured: \(measured), silent (underrun): \(silent)")

        // Enter saved one edit; u took it back, in the document.
        #expect(edited.count == 1 && edited.scaled >= 1, "after Enter: \(edited)")
        #expect(undone.count == 0 && undone.scaled == 0, "after u: \(undone)")
        #expect(stderr.contains("saved: scale") && stderr.contains("undid: scale"), "stderr: \(stderr)")

        func whiteInKeyList(_ shot: (luma: [UInt8], width: Int, height: Int)) -> Int {
            var white = 0
            // Below the picture code's band (a 16th of the width high), where only the list is white.
            for y in (shot.width / 16 + 4)..<min(shot.height - 84, 200) {
                for x in 24..<min(shot.width, 300) where shot.luma[y * shot.width + x] > 200 { white += 1 }
            }
            return white
        }
        let shown = whiteInKeyList(help), hidden = whiteInKeyList(noHelp)
        #expect(shown > 300 && shown > 4 * hidden, "white text pixels with the key list \(shown), without \(hidden)")
    }
}
