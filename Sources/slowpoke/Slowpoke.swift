import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Preview
import SafeFiles
import TimePitch

/// The root command. Subcommands live one per file; each turns its flags into library calls.
struct Slowpoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slowpoke",
        abstract: "Retime movies: slow a section to quarter speed, speed up another, and export the result.",
        discussion: """
            slowpoke keeps your edits in a project document, <movie>.slowpoke, beside the movie. \
            The movie itself is never changed.

            A first session:
              slowpoke open clip.mp4                      # creates clip.slowpoke
              slowpoke scale --range 3.2-5.0 --rate 0.25  # 3.2-5.0 s at quarter speed
              slowpoke info                               # the timeline, segment by segment
              slowpoke export                             # clip-slowpoke.mp4, all frames
              slowpoke preview                            # play; keys change rate, pitch
              slowpoke undo                               # changed your mind

            Times are seconds (3.2, 3.2s, 500ms, 1m3.2s), fractions (1/3), timecodes \
            (00:01:03.200), `end`, `end-2s` or a percentage of the timeline (25%). \
            Rates (--rate or --speed) are decimals (0.25) or fractions (1/4), from 1/32 to 32.
            When the document is left out, slowpoke uses the only *.slowpoke in the current folder.
            """,
        version: "0.1.0",
        subcommands: [Open.self, Info.self, Scale.self, RampCommand.self, FreezeCommand.self, SlomoCommand.self, Remove.self, InsertGap.self, Undo.self, Redo.self, History.self, Stretch.self, ExportMovie.self, OTIOCommand.self, Batch.self, PreviewMovie.self]
    )
}

/// Entry point: runs the command and turns errors into `slowpoke: error: …` and an exit code.
///
/// | exit code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | the command could not be done (bad input, a broken document, a media error) |
/// | 64 | the command line itself is wrong (an unknown flag, a malformed value) |
/// | 130 | interrupted (SIGINT or SIGTERM); no output was left behind |
@main
enum Main {
    static func main() {
        MemoryPolicy.apply()
        Signals.install()
        // With --progress json every stderr line is JSON, errors too (even a malformed flag's).
        let arguments = CommandLine.arguments
        Terminal.json = arguments.contains("--progress=json")
            || zip(arguments, arguments.dropFirst()).contains { $0 == "--progress" && $1 == "json" }
        Terminal.interruptMessage(ExportError.interrupted.description)
        do {
            try MisspeltArguments.check(Array(arguments.dropFirst()))
            var command = try Slowpoke.parseAsRoot()
            try command.run()
        } catch ExportError.interrupted {
            fail(ExportError.interrupted.description, code: 130)
        } catch let stop as PreviewInterrupted {
            fail(stop.description, code: 130)
        } catch let stop as BatchInterrupted {
            fail(stop.description, code: 130)
        } catch let misspelt as MisspeltArguments.Failure {
            fail(misspelt.description, code: 64)
        } catch let error as LocalizedError where error.errorDescription != nil {
            // Every library error, and the command line's own, says what went wrong and what to do.
            fail(error.errorDescription!)
        } catch {
            let code = Slowpoke.exitCode(for: error)
            if code == .success || error is CleanExit {
                Slowpoke.exit(withError: error)
            }
            let message = Slowpoke.fullMessage(for: error)
            fail(message.replacingOccurrences(of: "Error: ", with: ""), code: 64)
        }
    }

    static func fail(_ message: String, code: Int32 = 1) -> Never {
        // Whatever a failed command was writing goes, even if a worker thread still holds it,
        // and so does a document it made for a movie it was given.
        Signals.removeTemporaryFiles()
        // Only while it holds no edit: an interrupted preview keeps what it saved.
        if let document = DocumentLocator.createdForThisCommand, (try? DocumentStore.read(document))?.history.entries.isEmpty == true {
            try? FileManager.default.removeItem(at: document)
        }
        Terminal.error(message)
        exit(code)
    }
}

/// Errors of the command line itself: which document to use, how flags combine.
struct CLIError: LocalizedError, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    var errorDescription: String? { description }
}

/// Where output goes: results to stdout, messages to stderr.
enum Terminal {
    /// Whether stderr speaks JSON (`--progress json`): one object per line.
    nonisolated(unsafe) static var json = false

    static func error(_ message: String) {
        FileHandle.standardError.write(Data(errorLine(message).utf8))
    }

    static func note(_ message: String) {
        let line = json ? jsonLine(["event": "note", "message": message]) : "slowpoke: \(printable(message, keepingNewlines: true))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// An error as stderr shows it: `slowpoke: error: …`, or a JSON `error` event.
    static func errorLine(_ message: String) -> String {
        json ? jsonLine(["event": "error", "message": message]) : "slowpoke: error: \(printable(message, keepingNewlines: true))\n"
    }

    /// What stderr shows if the process must end without unwinding (a second interrupt, or an
    /// interrupted command that did not end within a second): said now, written by the signal
    /// handler then.
    static func interruptMessage(_ message: String) {
        Signals.setInterruptMessage(errorLine(message))
    }

    static func jsonLine(_ fields: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `text` with control characters (C0 but tab, DEL, C1) shown as `\u{1B}`: a file name from
    /// someone else cannot move the cursor, retitle the terminal or hide the rest of a line.
    /// (A message of several lines, a usage text, keeps its line breaks with `keepingNewlines`.)
    static func printable(_ text: String, keepingNewlines: Bool = false) -> String {
        let escaped = { (scalar: Unicode.Scalar) in isControl(scalar) && !(keepingNewlines && scalar == "\n") }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if escaped(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
