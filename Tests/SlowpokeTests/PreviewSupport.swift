import Foundation
import TestSupport

/// A private X server (Xvfb) for driving `slowpoke preview` with real key presses (xdotool) and
/// reading its window back (xwd, decoded by ffmpeg).
final class VirtualDisplay {
    let display: String
    private let server: Process

    init() throws {
        // Xvfb picks a free display number itself and writes it to the descriptor -displayfd
        // names, so tests running side by side never share a server.
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        server.arguments = ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
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
    private(set) var window = ""
    private let errPipe = Pipe()

    init(_ arguments: [String], in folder: URL, display: VirtualDisplay, channels: Int = 2,
         environment: [String: String] = [:]) throws {
        self.display = display
        self.channels = channels
        audioFile = folder.appendingPathComponent("heard.raw")
        process.executableURL = TestSupport.slowpoke
        process.arguments = ["preview"] + arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging([
            "DISPLAY": display.display, "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": audioFile.path,
            "SWIFT_BACKTRACE": "enable=no",
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
        throw Failure(message: "no preview window appeared; stderr: \(stderr())")
    }

    /// The window's title, which carries the status line.
    func title() -> String {
        ((try? display.x("xdotool", ["getwindowname", window]))?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
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
    /// close its window on the key press, before xdotool sends the key release.
    func quit(timeout: Double = 15) -> Int32 {
        _ = try? display.x("xdotool", ["key", "--window", window, "q"])
        return waitForExit(timeout: timeout)
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

    func stderr() -> String {
        guard !process.isRunning else { return "(still running)" }
        return String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The first channel of what was heard.
    func heardAudio() throws -> [Float] {
        let data = try Data(contentsOf: audioFile)
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return stride(from: 0, to: all.count - channels + 1, by: channels).map { all[$0] }
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
    /// The median spacing of beep onsets in `samples[range]`, in seconds, and the onsets.
    static func beeps(_ samples: [Float], in range: Range<Int>) -> (spacing: Double, onsets: [Int]) {
        let found = Signals.onsets(Array(samples[range]), threshold: 0.15).map { $0 + range.lowerBound }
        let gaps = zip(found, found.dropFirst()).map { Double($1 - $0) / 48000 }.sorted()
        return (gaps.isEmpty ? .nan : gaps[gaps.count / 2], found)
    }

    /// The beep's pitch right after an onset.
    static func pitch(_ samples: [Float], at onset: Int) -> Double {
        Signals.dominantFrequency(samples, from: onset + 96, count: 1024)
    }
}

/// A clip like media/clip60.mp4 (picture code, 1 kHz beeps at each whole second) but `seconds`
/// long and 320x180, made with media/gen.py.
func makeLongClip(seconds: Int, in folder: URL, name: String = "long.mp4") throws -> URL {
    let gen = TestSupport.root.appendingPathComponent("media/gen.py").path
    let wav = folder.appendingPathComponent("beeps.wav").path
    let out = folder.appendingPathComponent(name)
    let script = """
        set -euo pipefail
        python3 '\(gen)' beeps '\(wav)' \(seconds)
        python3 '\(gen)' frames 320 180 60 1 \(seconds * 60) | ffmpeg -hide_banner -loglevel error -nostdin -y \
          -f rawvideo -pix_fmt yuv420p -s 320x180 -framerate 60 -i - -i '\(wav)' -map 0:v:0 -map 1:a:0 \
          -c:v libx264 -preset ultrafast -g 60 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 96k -ar 48000 -ac 2 '\(out.path)'
        """
    let result = try TestSupport.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
    guard result.status == 0 else { throw PreviewSession.Failure(message: "making the long clip: \(result.stderr)") }
    return out
}

/// A rational time as the document stores it ("7/2", "3.25", "12").
func seconds(_ text: String) -> Double {
    let parts = text.split(separator: "/")
    if parts.count == 2, let a = Double(parts[0]), let b = Double(parts[1]) { return a / b }
    return Double(text) ?? .nan
}

/// Measures how far the picture on screen trails the sound being heard, while playing at 1x.
///
/// ffmpeg's x11grab records the window with a wall-clock timestamp per frame, while a thread
/// here samples the length of the disk audio file against the same clock. Each recorded frame
/// then has a video time (its frame index / fps, read from the picture code) and an audio time
/// (the heard file position at that instant, turned into composition time by the beeps: the
/// n-th beep after `origin` is second `firstBeep + n`). The offset is audio minus video time,
/// less half a frame (a frame is on screen from its time until the next one's).
enum AVSync {
    static func measure(_ session: PreviewSession, seconds: Double, fps: Double, firstBeep: Int, origin: Int) throws -> [Double] {
        guard let (x, y, width, height) = try session.geometry() else {
            throw PreviewSession.Failure(message: "no geometry for window \(session.window)")
        }
        final class Samples: @unchecked Sendable {  // written by the sampler, read after it stops
            var times: [Double] = []
            var frames: [Int] = []
            var stop = false
        }
        let samples = Samples()
        let file = session.audioFile, channels = session.channels
        let sampler = Thread {
            while !samples.stop {
                samples.times.append(Date().timeIntervalSince1970)
                samples.frames.append(PreviewSession.frames(in: file, channels: channels))
                usleep(2000)
            }
        }
        sampler.start()
        let raw = session.audioFile.deletingLastPathComponent().appendingPathComponent("grab-\(UUID().uuidString).gray")
        defer { try? FileManager.default.removeItem(at: raw) }
        let grab = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-hide_banner", "-nostdin", "-f", "x11grab", "-framerate", "20", "-video_size", "\(width)x\(height)",
            "-i", "\(session.display.display)+\(x),\(y)", "-frames:v", "\(Int(seconds * 20))", "-vf", "showinfo", "-fps_mode", "passthrough",
            "-copyts", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw.path,
        ])
        usleep(50_000)
        samples.stop = true
        while !sampler.isFinished { usleep(1000) }
        guard grab.status == 0 else { throw PreviewSession.Failure(message: "x11grab: \(grab.stderr)") }
        let stamps: [Double] = grab.stderr.split(separator: "\n").compactMap { line in
            guard line.contains("showinfo"), let r = line.range(of: " pts:") else { return nil }
            return Double(line[r.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }).map { $0 / 1_000_000 }
        }
        let pixels = [UInt8](try Data(contentsOf: raw))
        let frameSize = width * height
        let heard = try session.heardAudio()
        let onsets = Signals.onsets(Array(heard[origin...]), threshold: 0.15).map { $0 + origin }
        var offsets: [Double] = []
        for (n, stamp) in stamps.enumerated() where (n + 1) * frameSize <= pixels.count {
            // The heard position at `stamp`, between the two samples around it.
            guard let after = samples.times.firstIndex(where: { $0 >= stamp }), after > 0 else { continue }
            let t0 = samples.times[after - 1], t1 = samples.times[after]
            let f0 = Double(samples.frames[after - 1]), f1 = Double(samples.frames[after])
            let position = f0 + (f1 - f0) * (stamp - t0) / max(1e-9, t1 - t0)
            guard let beep = onsets.lastIndex(where: { Double($0) <= position }) else { continue }
            let audioTime = Double(firstBeep + beep) + (position - Double(onsets[beep])) / 48000
            let shot = (luma: Array(pixels[(n * frameSize)..<((n + 1) * frameSize)]), width: width, height: height)
            let videoTime = Double(PictureCode.frameIndex(shot)) / fps
            offsets.append(audioTime - videoTime - 0.5 / fps)
        }
        return offsets
    }
}
