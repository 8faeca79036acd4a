import Foundation
import TestSupport
import Testing

/// The preview as an editor's viewer (issue 54): the timeline strip read back from the screen,
/// the mouse driven by xdotool, the saved document read as JSON. Paused, each wait a poll: in
/// PreviewScreenTests, beside the rest of the suite.
extension PreviewScreenTests {
    /// The clock in the title's status, in seconds.
    static func clock(_ title: String) -> Double {
        guard let slash = title.range(of: " / ") else { return .nan }
        let text = title[..<slash.lowerBound].split(separator: " ").last.map(String.init) ?? ""
        let parts = text.split(separator: ":")
        guard parts.count == 2, let m = Double(parts[0]), let s = Double(parts[1]) else { return .nan }
        return m * 60 + s
    }

    /// The strip's bottom row (luma), where every bar stands.
    static func stripRow(_ shot: (luma: [UInt8], width: Int, height: Int), fromBottom: Int = 2) -> [Int] {
        let y = shot.height - fromBottom
        return (0..<shot.width).map { Int(shot.luma[y * shot.width + $0]) }
    }

    /// The columns where the row changes by more than 12 (a segment's edge), merged within 3 px.
    static func edges(_ row: [Int], ignoring: ClosedRange<Int>? = nil) -> [Int] {
        var found: [Int] = []
        for x in 1..<row.count where abs(row[x] - row[x - 1]) > 12 && !(ignoring?.contains(x) ?? false) {
            if let last = found.last, x - last <= 3 { continue }
            found.append(x)
        }
        return found
    }

    /// 8 s of picture code; 2-4 scaled to 1/4 (2-10 on the timeline), then 11-12 reversed:
    /// 1x 0-2, 1/4 2-10, 1x 10-11, reversed 11-12, 1x 12-14. The strip's segments sit at their
    /// times' fractions of the width; a slowed bar is shorter; then clicks seek to their fraction
    /// of the timeline, the picture following, a drag moves the picture with it, and the wheel
    /// steps frames.
    @Test func theStripShowsTheTimelineAndAClickSeeksThere() throws {
        let folder = try TemporaryFolder("preview-strip")
        _ = try makeLongClip(seconds: 8, in: folder.url)
        #expect(try slowpoke("open", "long.mp4", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "2-4", "--rate", "1/4", in: folder).status == 0)
        #expect(try slowpoke("reverse", "--range", "11-12", in: folder).status == 0)
        let display = try VirtualDisplay()
        let session = try PreviewSession(["long.slowpoke", "--start", "13.5"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let shot = try session.screenshot()
        let width = shot.width
        #expect(width >= 640, "a 320x180 clip opens at least 640 px wide: \(width)")
        let row = Self.stripRow(shot)
        let playhead = Int((13.5 / 14 * Double(width)).rounded())
        let edges = Self.edges(row, ignoring: (playhead - 3)...(playhead + 3))
        let expected = [2.0, 10, 11, 12].map { Int(($0 / 14 * Double(width)).rounded()) }
        #expect(edges.count == expected.count, "edges \(edges), expected \(expected); row \(row)")
        var checked = 0
        for (seen, wanted) in zip(edges, expected) {
            #expect(abs(seen - wanted) <= 2, "edge at \(seen), expected \(wanted): edges \(edges)")
            checked += 1
        }
        #expect(checked == 4)
        // The 1/4 section's bar is a quarter of the strip high; 1x (the fastest here) fills it.
        let top = Self.stripRow(shot, fromBottom: 26)
        let slowX = Int(6.0 / 14 * Double(width)), normalX = Int(1.0 / 14 * Double(width))
        #expect(top[slowX] < 40 && top[normalX] > 100, "strip top: slow \(top[slowX]), 1x \(top[normalX])")
        #expect(abs(row[slowX] - row[normalX]) > 25, "slow and 1x differ: \(row[slowX]) vs \(row[normalX])")
        // The playhead is white.
        #expect(row[playhead] > 200 || row[playhead - 1] > 200, "playhead luma \(row[playhead])")

        // A click at x% seeks to x% of the timeline; the picture follows (inside 0-2 s, 1x: frame = 60 t).
        var clicks = 0
        for fraction in [0.05, 0.1, 0.75, 0.12] {
            try session.pointAtStrip(fraction)
            try session.xdotool("click", "1")
            let x = Int((fraction * Double(width)).rounded())
            func seeked(_ clock: Double) -> Bool { abs(clock - Double(x) / Double(width) * 14) < 14.0 / Double(width) + 0.002 }
            // Until the status shows the seek (or 5 s pass: the check below then fails).
            let clock = Self.clock(session.waitForTitle { seeked(Self.clock($0)) })
            #expect(seeked(clock), "click at \(fraction): clock \(clock)")
            if clock < 2 {
                // The picture is drawn just after the title is set: until it shows (or 3 s pass).
                let frame = PictureCode.frameIndex(try session.waitForScreenshot { abs(PictureCode.frameIndex($0) - Int(clock * 60)) <= 1 })
                #expect(abs(frame - Int(clock * 60)) <= 1, "click at \(fraction): frame \(frame), clock \(clock)")
            }
            clicks += 1
        }
        #expect(clicks == 4)
        // In the slowed section the status shows the speed heard there beside the key rate.
        try session.pointAtStrip(0.4)
        try session.xdotool("click", "1")
        let slowTitle = session.waitForTitle { $0.contains("1x (0.25x here)") }
        #expect(slowTitle.contains("1x (0.25x here)"), "title: \(slowTitle)")
        // Dragging: the picture follows while the button is held.
        try session.pointAtStrip(0.02)
        try session.xdotool("mousedown", "1")
        _ = session.waitForTitle { abs(Self.clock($0) - 0.02 * 14) < 0.05 }
        try session.pointAtStrip(0.11)
        let draggedClock = Self.clock(session.waitForTitle { abs(Self.clock($0) - 0.11 * 14) < 0.05 })
        let dragged = PictureCode.frameIndex(try session.waitForScreenshot { abs(PictureCode.frameIndex($0) - Int(draggedClock * 60)) <= 1 })
        try session.xdotool("mouseup", "1")
        #expect(abs(draggedClock - 0.11 * 14) < 0.05, "clock during the drag \(draggedClock)")
        #expect(abs(dragged - Int(draggedClock * 60)) <= 1, "frame during the drag \(dragged), clock \(draggedClock)")
        // The wheel steps frames: three up, one down (60 fps, 1x here).
        // xdotool returns once the clicks are sent; the status then shows where they led.
        try session.xdotool("click", "--repeat", "3", "--delay", "150", "4")
        let up = Self.clock(session.waitForTitle { abs(Self.clock($0) - draggedClock - 3.0 / 60) < 0.002 })
        try session.xdotool("click", "5")
        let down = Self.clock(session.waitForTitle { abs(Self.clock($0) - up + 1.0 / 60) < 0.002 })
        #expect(abs(up - draggedClock - 3.0 / 60) < 0.002 && abs(down - up + 1.0 / 60) < 0.002,
                "wheel: \(draggedClock) → \(up) → \(down)")
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
    }

    /// Shift-drag over 20%-40% of an 8 s clip marks 1.6-3.2 s; ← three times (1/4) and Enter
    /// save the scale to the document, the strip redrawn at once with the new section, and the
    /// message on screen.
    @Test func shiftDragMarksARangeAndEnterScalesIt() throws {
        let folder = try TemporaryFolder("preview-mark")
        _ = try makeLongClip(seconds: 8, in: folder.url)
        let display = try VirtualDisplay()
        let session = try PreviewSession(["long.mp4"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        let before = try session.screenshot()
        // The X server hands the window its events in order: shift down, the button, the moves.
        try session.pointAtStrip(0.2)
        try session.xdotool("keydown", "shift")
        try session.xdotool("mousedown", "1")
        try session.pointAtStrip(0.3)
        try session.pointAtStrip(0.4)
        try session.xdotool("mouseup", "1")
        try session.xdotool("keyup", "shift")
        // Until the status shows the marked range (or 5 s pass: the check below then fails).
        let marked = session.waitForTitle { $0.hasSuffix("]") }
        try session.pressAll(["Left", "Left", "Left", "Return"])
        // The save renders the slowed section's sound before playing on: on a loaded machine
        // that can take seconds. The title says when the new timeline is up.
        let title = session.waitForTitle(timeout: 15) { $0.contains("/ 00:12.800") }
        let expected = [1.6 / 12.8, 8 / 12.8].map { Int(($0 * Double(before.width)).rounded()) }
        func redrawn(_ edges: [Int]) -> Bool {
            edges.count >= 2 && abs(edges[0] - expected[0]) <= 2 && edges.contains { abs($0 - expected[1]) <= 3 }
        }
        // The strip is drawn just after the title is set: until it shows the new section (or 3 s pass).
        let after = try session.waitForScreenshot { redrawn(Self.edges(Self.stripRow($0))) }
        #expect(session.quit() == 0, "stderr: \(session.stderr())")
        let stderr = session.stderr()
        #expect(marked.hasSuffix("[00:01.600 – 00:03.200]"), "marked: \(marked)")
        #expect(stderr.contains("saved: scale 1.6-3.2 to 6.4 s (0.25x); the timeline is now 12.8 s"), "stderr: \(stderr)")
        #expect(title.contains("/ 00:12.800"), "title after Enter: \(title)")

        // The document holds the scale: source 1.6-3.2 played at 1/4.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.file("long.slowpoke"))) as? [String: Any])
        let tracks = (json["timeline"] as? [String: Any])?["tracks"] as? [[String: Any]] ?? []
        let slowed = tracks.flatMap { ($0["segments"] as? [[String: Any]]) ?? [] }.filter { $0["rate"] as? String == "0.25" }
        #expect(slowed.count == tracks.count && !slowed.isEmpty, "segments at 0.25: \(slowed)")
        for segment in slowed {
            let source = segment["source"] as? [String: Any]
            #expect(seconds(source?["start"] as? String ?? "") == 1.6 && seconds(source?["duration"] as? String ?? "") == 1.6,
                    "segment \(segment)")
        }
        // The strip follows at once: before, one 1x bar; after, the slowed section's edges at
        // 1.6 / 12.8 and 8 / 12.8 of the width (the playhead, at 3.2 s of the movie, is at 8 s too).
        let w = after.width
        #expect(Self.edges(Self.stripRow(before), ignoring: 0...3).isEmpty, "before: \(Self.edges(Self.stripRow(before)))")
        let edges = Self.edges(Self.stripRow(after))
        #expect(w == before.width && redrawn(edges), "edges \(edges), expected \(expected)")
        // The saved message shows above the status band: white text pixels in the rows above it.
        var white = 0
        for y in (after.height - 44 - 34 - 30)..<(after.height - 44 - 34) {
            for x in 0..<w where after.luma[y * w + x] > 200 { white += 1 }
        }
        #expect(white > 150, "white message pixels above the status: \(white)")
    }
}
