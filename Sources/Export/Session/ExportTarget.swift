import Foundation
import SafeFiles
import Media

/// Where an export session's bytes go: a file, claimed through SafeFiles' ``OutputFile`` (the one
/// way slowpoke writes a file: a temporary name beside it, inputs refused, renamed when
/// complete), or standard output, which is no file: the muxer writes to descriptor 1 as it goes
/// (libavformat's `pipe:1`), nothing is renamed, and what was written stays written.
enum ExportTarget {
    case file(OutputFile)
    case standardOutput(URL)

    /// Claims `output`: a file as ``OutputFile/claim(_:force:inputs:)`` does; standard output
    /// as it is, unless it is a terminal (a movie's bytes would flood it).
    static func claim(_ output: URL, force: Bool, inputs: [URL]) throws(ExportError) -> ExportTarget {
        guard StandardOutput.isStandardOutput(output) else { return .file(try OutputFile.claim(output, force: force, inputs: inputs)) }
        guard isatty(STDOUT_FILENO) == 0 else {
            throw ExportError.cannotWrite(path: StandardOutput.displayName, reason: "it is a terminal; pipe it into a player or a file (`| ffplay -`, `> out.mkv`)")
        }
        return .standardOutput(output)
    }

    /// The output as the exporter was given it.
    var destination: URL {
        switch self {
        case .file(let file): file.destination
        case .standardOutput(let url): url
        }
    }

    /// How messages name it: the file's path, or `standard output`.
    var display: String {
        switch self {
        case .file(let file): file.destination.path
        case .standardOutput: StandardOutput.displayName
        }
    }

    /// What the muxer opens: the claimed temporary file, or descriptor 1.
    var openablePath: String {
        switch self {
        case .file(let file): file.openablePath
        case .standardOutput: "pipe:1"
        }
    }

    /// The file being written, for checks that read it back (`--verify`); nil for a stream.
    var file: OutputFile? {
        if case .file(let file) = self { file } else { nil }
    }

    /// Puts a finished file in place; a stream is complete once its trailer is written.
    func commitExport() throws(ExportError) {
        try file?.commitExport()
    }
}
