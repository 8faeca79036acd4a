import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Media
import Preview
import SafeFiles
import TimePitch

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
        // The commands that read media start opening libav before the arguments are parsed
        // (about 15 ms of checking and reflection): the loading is the first thing they wait for.
        if let first = arguments.dropFirst().first, ["export", "info"].contains(first) { LibAV.preload() }
        do {
            try MisspeltArguments.check(Array(arguments.dropFirst()))
            var command = try Slowpoke.parseAsRoot(PreviewMovie.optionalValues(ExportMovie.optionalValues(Array(arguments.dropFirst()))))
            try command.run()
        } catch ExportError.interrupted, MediaError.interrupted {
            fail(ExportError.interrupted.description, code: 130)
        } catch let stop as PreviewInterrupted {
            fail(stop.description, code: 130)
        } catch let stop as BatchInterrupted {
            fail(stop.description, code: 130)
        } catch let misspelt as MisspeltArguments.Failure {
            fail(misspelt.description, code: 64)
        } catch let usage as UsageError {
            fail(usage.description, code: 64)
        } catch let error where FlagAdvice.message(for: error) != nil {
            // Every library error states what went wrong; the flags that would help are said here.
            fail(FlagAdvice.message(for: error)!)
        } catch {
            let code = Slowpoke.exitCode(for: error)
            if code == .success || error is CleanExit {
                LibAV.settle()
                Slowpoke.exit(withError: error)
            }
            let message = Slowpoke.fullMessage(for: error)
            fail(message.replacingOccurrences(of: "Error: ", with: ""), code: 64)
        }
        LibAV.settle()
    }

    static func fail(_ message: String, code: Int32 = 1) -> Never {
        // Whatever a failed command was writing goes, even if a worker thread still holds it,
        // and so does a document it made for a movie it was given.
        Signals.removeTemporaryFiles()
        // Only while it holds no edit: an interrupted preview keeps what it saved.
        if let document = DocumentLocator.createdForThisCommand, (try? DocumentStore.read(document))?.history.count == 0 {
            try? FileManager.default.removeItem(at: document)
        }
        Terminal.error(message)
        LibAV.settle()
        exit(code)
    }
}
