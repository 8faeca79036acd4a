import Foundation

/// Helpers shared by the test suites: running programs, finding the test media, the ffprobe
/// oracle, and temporary folders that clean up after themselves.
public enum TestSupport {
    /// The package's root folder.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A clip from `media/`.
    public static func media(_ name: String) -> URL { root.appendingPathComponent("media").appendingPathComponent(name) }

    /// The `slowpoke` binary built beside the test bundle.
    public static var slowpoke: URL {
        if let explicit = ProcessInfo.processInfo.environment["SLOWPOKE_BIN"] { return URL(fileURLWithPath: explicit) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("slowpoke")
    }

    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs a program to completion and captures its output.
    public static func run(_ executable: URL, _ arguments: [String], in folder: URL? = nil,
                           environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs so neither can fill up and block it. The
        // semaphore orders the reader's write before the read below (polling `isFinished` did
        // not, and ThreadSanitizer said so).
        nonisolated(unsafe) var errData = Data()
        let errRead = DispatchSemaphore(value: 0)
        let errReader = Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errRead.signal()
        }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errRead.wait()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a program found on PATH.
    public static func tool(_ name: String, _ arguments: [String], in folder: URL? = nil) throws -> Result {
        try run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments, in: folder)
    }

    /// `ffprobe -of json` with the given arguments, parsed by Foundation's JSON reader.
    public static func ffprobe(_ file: URL, _ arguments: [String]) throws -> [String: Any] {
        let result = try tool("ffprobe", ["-v", "error", "-of", "json"] + arguments + [file.path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else { throw ProbeFailure(message: result.stderr) }
        return json
    }

    public struct ProbeFailure: Error { public let message: String }
}

/// A temporary folder, removed when the last reference goes.
public final class TemporaryFolder: Sendable {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Copies a clip from `media/` in under `name`.
    @discardableResult
    public func copy(media: String, as name: String? = nil) throws -> URL {
        let target = file(name ?? media)
        try FileManager.default.copyItem(at: TestSupport.media(media), to: target)
        return target
    }

    /// The names of the files in the folder, sorted.
    public func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}

extension TestSupport {
    /// Decodes a file's audio stream `track` (its first by default) with the ffmpeg CLI (the
    /// independent oracle) to mono 32-bit float samples at `sampleRate`.
    public static func decodeAudio(_ file: URL, sampleRate: Int = 48000, channel: Int? = nil, track: Int = 0) throws -> [Float] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-decode-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        let mix = channel.map { ["-af", "pan=mono|c0=c\($0)"] } ?? ["-ac", "1"]
        let result = try tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:a:\(track)"] + mix
                              + ["-ar", "\(sampleRate)", "-f", "f32le", "-y", raw.path])
        guard result.status == 0 else { throw ProbeFailure(message: result.stderr) }
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Makes a WAV test signal with ffmpeg's lavfi sources, for example `sine=frequency=440`.
    public static func makeAudio(_ lavfi: String, seconds: Double, to file: URL, channels: Int = 2) throws {
        let result = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "\(lavfi):sample_rate=48000:duration=\(seconds)",
                                         "-ac", "\(channels)", "-c:a", "pcm_s16le", "-y", file.path])
        guard result.status == 0 else { throw ProbeFailure(message: result.stderr) }
    }
}

extension TestSupport {
    /// Starts `slowpoke arguments` in `folder`, waits until `ready` says the work is under way
    /// (at most 20 s), sends `signal`, and returns the exit status and stderr, plus whether it
    /// was still running when signalled.
    public static func interrupt(_ arguments: [String], in folder: URL, signal: Int32,
                                 when ready: () throws -> Bool) throws -> (status: Int32, stderr: String, wasRunning: Bool) {
        let process = Process()
        process.executableURL = slowpoke
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !(try ready()) { usleep(5_000) }
        let wasRunning = process.isRunning
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stderr, wasRunning)
    }
}
