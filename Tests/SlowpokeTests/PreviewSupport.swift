import Foundation
import TestSupport

/// Whether the preview tests run (PreviewCommandTests and PreviewScreenTests): they need Xvfb,
/// xdotool and xwd, so only with SLOWPOKE_PREVIEW_TESTS=1, which `make test` sets. A plain
/// `swift test` skips them.
enum PreviewTestGate {
    static var enabled: Bool { ProcessInfo.processInfo.environment["SLOWPOKE_PREVIEW_TESTS"] == "1" }
}

/// A private X server (Xvfb) for driving `slowpoke preview` with real key presses (xdotool) and
/// reading its window back (xwd, decoded by ffmpeg).
final class VirtualDisplay {
    let display: String
    private let server: Process

    init() throws {
        // Xvfb picks a free display number itself and writes it to the descriptor -displayfd
        // names, so tests running side by side never share a server. -noreset: by default an X
        // server resets when its last client leaves, and a connection made in that moment is
        // refused. The harness's xdotool calls come and go while the player connects, and 7 of
        // 250 preview starts (run in a loop beside Xvfb and xdotool) failed that way; with
        // -noreset none did.
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        server.arguments = ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        var text = ""
        while !text.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(server.processIdentifier, SIGKILL)
            throw PreviewSession.Failure(message: "Xvfb did not start (it said \(text.debugDescription))")
        }
        display = ":\(number)"
    }

    deinit {
        // Xvfb started through Foundation's Process does not act on SIGTERM (the signal stays
        // blocked in the child), so it is killed outright.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    /// Runs an X client (xdotool, xwd) on this display.
    @discardableResult
    func x(_ tool: String, _ arguments: [String]) throws -> TestSupport.Result {
        try TestSupport.run(URL(fileURLWithPath: "/usr/bin/\(tool)"), arguments, environment: ["DISPLAY": display])
    }
}

/// `slowpoke preview` running under a ``VirtualDisplay`` with SDL's disk audio driver, so what
/// a user would hear goes to `audioFile` as raw 32-bit float samples.
final class PreviewSession {
    let process = Process()
    let audioFile: URL
    let display: VirtualDisplay
    let channels: Int
    /// Where the player writes its ``ClockLog`` when it ends (SLOWPOKE_PREVIEW_CLOCK_LOG).
    let clockLogFile: URL
    private(set) var window = ""
    private let errPipe = Pipe()
    private var errText: String?

    init(_ arguments: [String], in folder: URL, display: VirtualDisplay, channels: Int = 2,
         environment: [String: String] = [:]) throws {
        self.display = display
        self.channels = channels
        audioFile = folder.appendingPathComponent("heard.raw")
        clockLogFile = folder.appendingPathComponent("clock-\(UUID().uuidString).log")
        process.executableURL = TestSupport.slowpoke
        process.arguments = ["preview"] + arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging([
            "DISPLAY": display.display, "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": audioFile.path,
            "SWIFT_BACKTRACE": "enable=no", "SLOWPOKE_PREVIEW_CLOCK_LOG": clockLogFile.path,
        ].merging(environment) { $1 }) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the player's window to be up and its loop running: the loop puts the status
    /// in the title (`slowpoke — …`). Earlier windows can be stand-ins that SDL replaces when it
    /// sets up the renderer.
    /// The window's position and size on the X screen (xdotool's X, Y, WIDTH and HEIGHT), or
    /// nil when the X server cannot report them.
    func geometry(of id: String? = nil) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let text = try display.x("xdotool", ["getwindowgeometry", "--shell", id ?? window]).stdout
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        guard let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"] else { return nil }
        return (x, y, width, height)
    }

    /// Waits for the preview's window. The first window found is not always usable yet: one
    /// clean-clone run found a window whose geometry the X server could not report a moment
    /// later. So the window counts as ready once the same one is found twice, 200 ms apart,
    /// and the X server reports its geometry.
    func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(30)
        var candidate = ""
        while Date() < deadline && process.isRunning {
            let found = try display.x("xdotool", ["search", "--pid", "\(process.processIdentifier)", "--name", "^slowpoke — "])
            let id = found.stdout.split(separator: "\n").last.map(String.init) ?? ""
            if !id.isEmpty, id == candidate, try geometry(of: id) != nil {
                window = id
                return
            }
            candidate = id
            // Let the first frame be drawn, and a replacement window appear if there is one.
            usleep(id.isEmpty ? 50_000 : 200_000)
        }
        throw Failure(message: "no preview window appeared; \(ending()); stderr: \(stderr())")
    }

    /// How the player ended, for a failure's message: its exit status or the signal that ended it
    /// (and where its core went), or that it still runs.
    func ending() -> String {
        guard !process.isRunning else { return "the player still runs" }
        if process.terminationReason == .uncaughtSignal {
            keepCore()
            return "the player was ended by signal \(process.terminationStatus) (core, if dumped: $TMPDIR/slowpoke-preview-cores)"
        }
        return "the player exited with status \(process.terminationStatus)"
    }

    /// The window's title, which carries the status line.
    func title() -> String {
        ((try? display.x("xdotool", ["getwindowname", window]))?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Reads the title until `done` holds of it, for at most `timeout` seconds; the last title
    /// read (the caller checks it: a poll that runs out leaves a title its check rejects). The
    /// player sets the title just before it draws the picture of the same turn of its loop.
    @discardableResult
    func waitForTitle(timeout: Double = 5, until done: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var title = title()
        while !done(title) && Date() < deadline {
            usleep(20_000)
            title = self.title()
        }
        return title
    }

    /// Takes screenshots until `done` holds of one, for at most `timeout` seconds; the last one
    /// taken (the caller checks it).
    func waitForScreenshot(timeout: Double = 3, until done: ((luma: [UInt8], width: Int, height: Int)) -> Bool) throws
        -> (luma: [UInt8], width: Int, height: Int) {
        let deadline = Date().addingTimeInterval(timeout)
        var shot = try screenshot()
        while !done(shot) && Date() < deadline {
            usleep(30_000)
            shot = try screenshot()
        }
        return shot
    }

    /// Waits until the clock in the title's status reads `seconds` or later (the player's own
    /// clock: on a loaded machine, whose audio underruns, it runs behind the wall clock), for at
    /// most `timeout` seconds.
    func waitForClock(_ seconds: Double, timeout: Double = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let title = title()
            if let slash = title.range(of: " / ") {
                let parts = (title[..<slash.lowerBound].split(separator: " ").last ?? "").split(separator: ":")
                if parts.count == 2, let m = Double(parts[0]), let s = Double(parts[1]), m * 60 + s >= seconds { return }
            }
            usleep(50_000)
        }
    }

    /// Audio frames written to the disk so far.
    var heardFrames: Int { Self.frames(in: audioFile, channels: channels) }

    static func frames(in file: URL, channels: Int) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        return size / (4 * channels)
    }

    /// Presses `keys` (X key names) in the window, one by one; returns the audio frame reached
    /// just before the first press.
    @discardableResult
    func press(_ keys: String...) throws -> Int { try pressAll(keys).first }

    /// Presses `keys` in turn; returns the heard frame before the first press and before the last.
    @discardableResult
    func pressAll(_ keys: [String]) throws -> (first: Int, last: Int) {
        let first = heardFrames
        var last = first
        for key in keys {
            last = heardFrames
            let result = try display.x("xdotool", ["key", "--window", window, key])
            guard result.status == 0 else { throw Failure(message: "xdotool key \(key): \(result.stderr)") }
        }
        return (first, last)
    }

    /// Runs one xdotool command on this display (mouse moves and buttons, keys held down go
    /// through XTEST, to the window under the pointer).
    func xdotool(_ arguments: String...) throws {
        let result = try display.x("xdotool", arguments)
        guard result.status == 0 else { throw Failure(message: "xdotool \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// Moves the pointer to `fraction` of the timeline strip's width, on the strip (its bars are
    /// the bottom 28 px of the window).
    func pointAtStrip(_ fraction: Double) throws {
        guard let (_, _, width, height) = try geometry() else { throw Failure(message: "no geometry for window \(window)") }
        let x = min(width - 1, Int((fraction * Double(width)).rounded()))
        try xdotool("mousemove", "--window", window, "\(x)", "\(height - 14)")
        usleep(50_000)
    }

    /// Presses q and waits for the player to exit. xdotool's error is ignored: the player may
    /// close its window on the key press, before xdotool sends the key release. The key is
    /// then released on the server: xdotool pressed it through XTEST (the window has the
    /// focus), and its release, sent to the window gone, failed and left q down in the X
    /// server, which then repeated it to the next window to take the focus. That was the
    /// session started on a display another had just quit with q that ended at once with
    /// status 0: after one failed release, 7 of 7 sessions in a row on that display did.
    func quit(timeout: Double = 15) -> Int32 {
        _ = try? display.x("xdotool", ["key", "--window", window, "q"])
        let status = waitForExit(timeout: timeout)
        _ = try? display.x("xdotool", ["keyup", "q"])
        return status
    }

    /// Waits for the player to exit (after q); kills it after `timeout` seconds.
    func waitForExit(timeout: Double = 15) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal { keepCore() }
        return process.terminationStatus
    }

    /// A player killed by a signal (a Swift trap is SIGILL, status 4) dumps core in its folder
    /// when the core size limit allows (`ulimit -c unlimited`, core_pattern `core`); the folder
    /// goes when the test ends, so the dump is moved to $TMPDIR/slowpoke-preview-cores.
    private func keepCore() {
        let folder = audioFile.deletingLastPathComponent()
        let keep = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-preview-cores")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name == "core" || name.hasPrefix("core.") {
            try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
            let target = keep.appendingPathComponent("\(name)-\(process.processIdentifier)-signal\(process.terminationStatus)")
            try? FileManager.default.moveItem(at: folder.appendingPathComponent(name), to: target)
        }
    }

    /// What the player wrote to stderr (read once it has ended, then kept: a second call gives
    /// the same text rather than the nothing left in the pipe).
    func stderr() -> String {
        guard !process.isRunning else { return "(still running)" }
        if let errText { return errText }
        let text = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        errText = text
        return text
    }

    /// The player's ``ClockLog``, written when it ended.
    func clockLog() throws -> [ClockEvent] {
        guard !process.isRunning else { throw Failure(message: "the clock log is written when the player ends") }
        return try ClockEvent.read(clockLogFile)
    }

    /// The disk audio frame at which the player acted on each press of `key` (its PreviewKey
    /// case name, e.g. "playPause"), from its clock log.
    func keyFrames(_ key: String) throws -> [Int] {
        try ClockEvent.keyFrames(key, in: clockLog())
    }

    /// The first channel of what was heard, from disk frame `start` on.
    func heardAudio(from start: Int = 0) throws -> [Float] {
        let handle = try FileHandle(forReadingFrom: audioFile)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(start * 4 * channels))
        let data = try handle.readToEnd() ?? Data()
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return stride(from: 0, to: all.count - channels + 1, by: channels).map { all[$0] }
    }

    /// Waits until `count` beeps have begun (onsets, found as ``Heard/beeps`` finds them) from
    /// disk frame `start` on, and `tail` frames more are written after the last (the length of
    /// its pitch window and the margin the tests leave), for at most `timeout` seconds; the
    /// onsets found. A poll of what was heard, in place of a fixed time that held as many beeps.
    @discardableResult
    func waitForBeeps(_ count: Int, from start: Int, tail: Int = 6000, timeout: Double = 10) -> [Int] {
        let deadline = Date().addingTimeInterval(timeout)
        var onsets: [Int] = []
        while Date() < deadline && process.isRunning {
            if let heard = try? heardAudio(from: start) {
                onsets = Signals.onsets(heard, threshold: 0.15).map { $0 + start }
                if onsets.count >= count && start + heard.count >= onsets[count - 1] + tail { return onsets }
            }
            usleep(40_000)
        }
        return onsets
    }

    /// The window as luma (0-255), read from the X server (xwd) and decoded by ffmpeg.
    func screenshot(to png: URL? = nil) throws -> (luma: [UInt8], width: Int, height: Int) {
        guard let (_, _, width, height) = try geometry() else { throw Failure(message: "no geometry for window \(window)") }
        let dump = audioFile.deletingLastPathComponent().appendingPathComponent("shot-\(UUID().uuidString).xwd")
        defer { try? FileManager.default.removeItem(at: dump) }
        let shot = try display.x("xwd", ["-silent", "-id", window, "-out", dump.path])
        guard shot.status == 0 else { throw Failure(message: "xwd: \(shot.stderr)") }
        let raw = dump.appendingPathExtension("gray")
        defer { try? FileManager.default.removeItem(at: raw) }
        let decoded = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "xwd_pipe", "-i", dump.path, "-pix_fmt", "gray",
                                                      "-f", "rawvideo", "-y", raw.path])
        guard decoded.status == 0 else { throw Failure(message: "ffmpeg xwd: \(decoded.stderr)") }
        if let png {
            _ = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "xwd_pipe", "-i", dump.path, "-y", png.path])
        }
        let luma = [UInt8](try Data(contentsOf: raw))
        guard luma.count == width * height else { throw Failure(message: "screenshot is \(luma.count) bytes, not \(width)x\(height)") }
        return (luma, width, height)
    }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// One line of the player's clock log (see ClockLog in Sources/Preview): a key it acted on, a
/// picture it presented or an audio track it switched to, when the device had taken
/// `deviceFrame` frames from the player's queue and the disk driver's file held `written`.
struct ClockEvent {
    let kind: String
    let what: String
    let deviceFrame: Int
    let written: Int
    /// The player's clock, composition seconds.
    let clock: Double
    /// For a picture: its time in the source movie.
    let source: Double?

    /// The clock log a player wrote to `file`.
    static func read(_ file: URL) throws -> [ClockEvent] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 6, let frame = Int(f[2]), let written = Int(f[3]), let clock = Double(f[4]) else { return nil }
            return ClockEvent(kind: f[0], what: f[1], deviceFrame: frame, written: written, clock: clock, source: Double(f[5]))
        }
    }

    /// Silence SDL wrote into the disk file up to `position` (while paused, and where the
    /// player's queue ran dry on a loaded machine): the file's frames less those the device took
    /// from the player, at the last event at or before `position`.
    static func silence(at position: Int, in log: [ClockEvent]) -> Int {
        guard let event = log.last(where: { $0.written >= 0 && $0.deviceFrame >= 0 && $0.written <= position }) else { return 0 }
        return event.written - event.deviceFrame
    }

    /// Whether SDL wrote silence (an underrun) between file positions `a` and `b`, or within
    /// `margin` frames of them (the log places silence only to its next event).
    static func silent(from a: Int, to b: Int, in log: [ClockEvent], margin: Int = 1024) -> Bool {
        silence(at: b + margin, in: log) != silence(at: a - margin, in: log)
    }

    /// The frames the player played from file position `a` to `b`: the silence SDL wrote
    /// between them left out.
    static func played(from a: Int, to b: Int, in log: [ClockEvent]) -> Int {
        b - a - (silence(at: b, in: log) - silence(at: a, in: log))
    }

    /// The disk audio frames at which the player acted on each press of `key`.
    static func keyFrames(_ key: String, in log: [ClockEvent]) -> [Int] {
        log.filter { $0.kind == "key" && $0.what == key }.map(\.written)
    }
}

/// Reading the test clips' picture code (see media/make-media.sh) from a screenshot of a
/// window that shows the whole frame: 16 blocks in the top band carry the frame index.
enum PictureCode {
    static func frameIndex(_ shot: (luma: [UInt8], width: Int, height: Int)) -> Int {
        let block = Double(shot.width) / 16
        var index = 0
        for bit in 0..<16 {
            let x = Int(block * (Double(bit) + 0.5)), y = Int(block / 2)
            if shot.luma[y * shot.width + x] > 128 { index |= 1 << bit }
        }
        return index
    }
}

/// Audio measurements on what the preview played.
enum Heard {
    /// The median spacing of beep onsets in `samples[range]`, in seconds, and the onsets. With
    /// the player's clock log, the spacing counts the frames it played: silence SDL wrote where
    /// its queue ran dry (a loaded machine) stretched gaps by 20-50% before.
    static func beeps(_ samples: [Float], in range: Range<Int>, log: [ClockEvent]? = nil) -> (spacing: Double, onsets: [Int]) {
        let found = Signals.onsets(Array(samples[range]), threshold: 0.15).map { $0 + range.lowerBound }
        var pairs = Array(zip(found, found.dropFirst()))
        if let log {
            // Gaps without an underrun where the log can tell; else the frames played (the log
            // places silence only to its next event, tens of ms apart on a loaded machine).
            let clean = pairs.filter { !ClockEvent.silent(from: $0.0, to: $0.1, in: log) }
            if !clean.isEmpty { pairs = clean }
        }
        let gaps = pairs.map { a, b in Double(log.map { ClockEvent.played(from: a, to: b, in: $0) } ?? b - a) / 48000 }.sorted()
        return (gaps.isEmpty ? .nan : gaps[gaps.count / 2], found)
    }

    /// The beep's pitch right after an onset.
    static func pitch(_ samples: [Float], at onset: Int) -> Double {
        Signals.dominantFrequency(samples, from: onset + 96, count: 1024)
    }
}

/// A clip like media/clip60.mp4 (picture code, 1 kHz beeps at each whole second) but `seconds`
/// long and 320x180, made with media/gen.py: once per test process for each length
/// (``GeneratedMedia``; some 1 s of CPU), copied into `folder` as `name`.
func makeLongClip(seconds: Int, in folder: URL, name: String = "long.mp4") throws -> URL {
    let gen = TestSupport.root.appendingPathComponent("media/gen.py").path
    let made = try GeneratedMedia.shared(["media/gen.py", "long clip", "\(seconds)"], extension: "mp4") { out in
        let wav = out.deletingPathExtension().appendingPathExtension("wav").path
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let script = """
            set -euo pipefail
            python3 '\(gen)' beeps '\(wav)' \(seconds)
            python3 '\(gen)' frames 320 180 60 1 \(seconds * 60) | ffmpeg -hide_banner -loglevel error -nostdin -y \
              -f rawvideo -pix_fmt yuv420p -s 320x180 -framerate 60 -i - -i '\(wav)' -map 0:v:0 -map 1:a:0 \
              -c:v libx264 -preset ultrafast -g 60 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 96k -ar 48000 -ac 2 '\(out.path)'
            """
        let result = try TestSupport.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
        guard result.status == 0 else { throw PreviewSession.Failure(message: "making the long clip: \(result.stderr)") }
    }
    let out = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: made, to: out)
    return out
}

/// A rational time as the document stores it ("7/2", "3.25", "12").
func seconds(_ text: String) -> Double {
    let parts = text.split(separator: "/")
    if parts.count == 2, let a = Double(parts[0]), let b = Double(parts[1]) { return a / b }
    return Double(text) ?? .nan
}

/// How far the picture trails the sound, at 1x, in the player's own clock: for each picture it
/// presented after `origin` (from its clock log), the composition time heard at that moment,
/// read from the disk audio at the device frame the log gives (by the beeps: the n-th beep
/// after `origin` is second `firstBeep + n`), minus the picture's time, less half a frame (a
/// frame is on screen from its time until the next one's). Silence SDL wrote when the player's
/// queue ran dry (a loaded machine) is left out of the time between a beep and a picture.
///
/// It replaces an x11grab recording of the window sampled against a thread that read the audio
/// file's length on the wall clock: on a loaded machine (load 20-24) that measured the machine,
/// and failed for main's binary too. The picture's time is the player's word for what it
/// presented (the screenshots check what is on screen); the time heard is the file's.
enum AVSync {
    static func offsets(_ session: PreviewSession, fps: Double, firstBeep: Int, origin: Int) throws -> [Double] {
        let heard = try session.heardAudio()
        guard origin < heard.count else { return [] }
        // A beep is found again where an underrun (SDL's silence, on a loaded machine) cuts it:
        // onsets within half a second of the one before are the same beep, and each beep's second
        // is its distance from the first, rounded.
        // Distances count the frames played (not SDL's silence, which moves no composition time).
        let log = try session.clockLog()
        var onsets: [Int] = []
        for onset in Signals.onsets(Array(heard[origin...]), threshold: 0.15).map({ $0 + origin })
        where onsets.last.map({ ClockEvent.played(from: $0, to: onset, in: log) >= 24000 }) ?? true {
            onsets.append(onset)
        }
        guard let firstOnset = onsets.first else { return [] }
        func second(_ onset: Int) -> Double {
            Double(firstBeep) + (Double(ClockEvent.played(from: firstOnset, to: onset, in: log)) / 48000).rounded()
        }
        var offsets: [Double] = []
        for event in log where event.kind == "frame" && event.written > origin && event.written < heard.count {
            guard let source = event.source, let beep = onsets.last(where: { $0 <= event.written }) else { continue }
            let audioTime = second(beep) + Double(ClockEvent.played(from: beep, to: event.written, in: log)) / 48000
            offsets.append(audioTime - source - 0.5 / fps)
        }
        return offsets
    }

    /// The median and the 90th percentile of the offsets' sizes, and a line to print.
    static func summary(_ offsets: [Double]) -> (median: Double, p90: Double, line: String) {
        let sorted = offsets.map(abs).sorted()
        guard !sorted.isEmpty else { return (.nan, .nan, "no offsets") }
        let median = sorted[sorted.count / 2], p90 = sorted[sorted.count * 9 / 10]
        return (median, p90, "A/V offsets (audio − video, ms) over \(offsets.count) pictures: median \(Int(median * 1000)), 90th percentile \(Int(p90 * 1000)), max \(Int(sorted.last! * 1000))")
    }
}
