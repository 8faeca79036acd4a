import Foundation
import TestSupport
import Testing

/// One SIGTERM ends any command within about a second, and a crash (a fatal signal) ends it at
/// once: either way the temporary output is gone, and nothing hangs a pipeline.
@Suite struct SignalCleanupTests {
    struct Ending {
        let reason: Process.TerminationReason
        let status: Int32
        let seconds: Double
        let stderr: String
    }

    /// Starts `arguments` in `folder`, sends `signal` once a temporary output exists, and
    /// times how long the process takes to end.
    func signalled(_ arguments: [String], in folder: TemporaryFolder, _ signal: Int32) throws -> Ending {
        let process = Process()
        process.executableURL = TestSupport.slowpoke
        process.arguments = arguments
        process.currentDirectoryURL = folder.url
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, !(try folder.listing().contains { $0.contains("slowpoke-tmp") }) { usleep(5_000) }
        #expect(process.isRunning, "the command ended before it could be signalled")
        let sent = Date()
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(sent)
        return Ending(reason: process.terminationReason, status: process.terminationStatus, seconds: seconds,
                      stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// A long export (10 s at 1/32: 320 s of stretched audio), stopped mid-way.
    @Test func oneSIGTERMEndsAnExportWithinASecond() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "0-10", "--rate", "1/32"]])
        let ending = try signalled(["export", "--progress", "none"], in: folder, SIGTERM)
        #expect(ending.reason == .exit && ending.status == 130)
        #expect(ending.seconds < 1.6, "ended \(ending.seconds) s after SIGTERM")
        #expect(ending.stderr.hasSuffix("slowpoke: error: interrupted; no output was written\n"), "\(ending.stderr)")
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }

    /// Under --progress json the last line is still JSON, whichever path ended the command.
    @Test func theInterruptLineIsJSONUnderProgressJSON() throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "0-10", "--rate", "1/32"]])
        let ending = try signalled(["export", "--progress", "json"], in: folder, SIGTERM)
        let last = try #require(ending.stderr.split(separator: "\n").last)
        let event = try json(String(last))
        #expect(event["event"] as? String == "error" && event["message"] as? String == "interrupted; no output was written", "\(last)")
    }

    /// A crash (here: the signal a crash raises, sent from outside) removes the temporary
    /// output and ends the process by that signal, without a crash reporter that could hang.
    @Test(arguments: [SIGSEGV, SIGBUS, SIGABRT, SIGILL])
    func aCrashLeavesNothingAndEndsAtOnce(_ signal: Int32) throws {
        let folder = try project("clip60.mp4", edits: [["scale", "--range", "0-10", "--rate", "1/32"]])
        let ending = try signalled(["export", "--progress", "none"], in: folder, signal)
        #expect(ending.reason == .uncaughtSignal && ending.status == signal, "\(ending.reason) \(ending.status)")
        // A crash says so (a crash inside a C library printed nothing before).
        #expect(ending.stderr.hasSuffix("slowpoke: error: crashed (signal \(signal), \(["SIGSEGV": 11, "SIGBUS": 7, "SIGABRT": 6, "SIGILL": 4].first { $0.value == signal }!.key))\n"), "\(ending.stderr)")
        #expect(ending.seconds < 2, "ended \(ending.seconds) s after the signal")
        let left = try folder.listing()
        #expect(left.allSatisfy { !$0.contains("slowpoke-tmp") }, "\(left)")
    }
}
