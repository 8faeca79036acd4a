import Foundation

/// A program run with a time limit, telling an exit from a death by signal.
public enum BoundedRun {
    public struct Outcome: Sendable {
        /// The exit status, or the signal's number when ``signalled``.
        public let status: Int32
        public let signalled: Bool
        /// Killed after the time limit.
        public let timedOut: Bool
        public let seconds: Double
        public let stderr: String
    }

    /// Runs `arguments` in `folder` with `environment` added, killing it (SIGKILL) after
    /// `limit` seconds. Standard input is `/dev/null`; standard output is discarded.
    public static func run(_ executable: URL, _ arguments: [String], in folder: URL,
                           environment: [String: String], limit: Double) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        var timedOut = false
        while process.isRunning {
            if Date().timeIntervalSince(started) > limit {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        while !reader.isFinished { usleep(1_000) }
        return Outcome(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                       timedOut: timedOut, seconds: Date().timeIntervalSince(started),
                       stderr: String(decoding: errData, as: UTF8.self))
    }
}
