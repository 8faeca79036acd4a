import Foundation
import Media
import Preview
import Project

/// `preview --stabilize`: the analysis `export --stabilize` keeps (beside the document, for the
/// same movie content), used as it is or made before the preview opens.
extension PreviewMovie {
    /// q pressed while the analysis was being made.
    struct StoppedBeforePlaying: Error {}

    /// Readies `options` to steady the pictures at `strength`; how the analysis came to be
    /// (`stabilized (strength 10, …; analysis reused)`), or nil when q stopped its making.
    /// Progress goes to stderr; SIGINT and SIGTERM stop it (exit 130), and so does q from a
    /// terminal (nothing plays). Nothing of an unfinished analysis is kept.
    func steadying(_ strength: Int, document: ProjectDocument, at url: URL, options: inout PreviewOptions) throws -> String? {
        let stabilization: Stabilization
        do {
            stabilization = try Stabilization(strength: strength, borders: stabilizeBorders ?? .zoom,
                                              cache: ExportMovie.stabilizationCache(url), movieKey: ExportMovie.movieKey(document.movie.fingerprint))
        } catch { throw CLIError("--stabilize: \(error.description)") }
        let movie = DocumentStore.movieURL(of: document, at: url)
        // The stream export steadies and the preview plays: the document's primary video stream.
        guard let stream = document.media.primaryVideo?.index else { throw CLIError("--stabilize: \(movie.lastPathComponent) has no video stream to steady") }
        let reporter = ProgressReporter(style: .auto, label: "stabilization analysis", mediaSeconds: document.media.duration?.seconds ?? 0)
        // Keys from the terminal only (the window is not open yet), without echo.
        let keys = isatty(STDIN_FILENO) != 0 ? TerminalKeys() : nil
        defer { keys?.restore() }
        let prepared: StabilizationAnalysis.Prepared
        do {
            prepared = try StabilizationAnalysis.prepare(stabilization, movie: movie, stream: stream) { fraction in
                if keys?.next() == .quit { throw StoppedBeforePlaying() }
                try reporter.update(fraction)
            }
        } catch is StoppedBeforePlaying {
            // The progress bar's line ends first.
            if isatty(STDERR_FILENO) != 0 { FileHandle.standardError.write(Data("\n".utf8)) }
            Terminal.note("stopped before playing; the stabilization analysis was not finished, so nothing of it is kept")
            return nil
        }
        options.stabilization = stabilization
        options.stabilizationAnalysis = prepared
        return stabilization.said(reused: prepared.reused, redone: prepared.redone)
    }

    /// `--stabilize` alone (no `=S`) as `--stabilize=10`, as for export: its value is optional.
    static func optionalValues(_ arguments: [String]) -> [String] {
        guard arguments.first == "preview" else { return arguments }
        return arguments.map { $0 == "--stabilize" ? "--stabilize=\(Stabilization.defaultStrength)" : $0 }
    }
}
