import ArgumentParser
import Batch
import Composition
import Export
import Foundation
import Media
import Project

/// What `export` and `info`'s plan of an export both read from their flags, said once: the
/// program exported, and the `--fps` export's summary line (the other flags they share are
/// ``EncodingOptions``).
enum ExportChoice {
    /// What the export reads: the document, or with `program` the program it names.
    static func source(_ document: ProjectDocument, at url: URL, program: Int?) throws -> ExportSource {
        guard let program else { return ExportSource(document: document, at: url) }
        let chosen: ExportSource?
        do { chosen = try ExportSource(document: document, at: url, program: program) } catch {
            // Program N may be shorter than the one the edits were made on.
            throw CLIError("--program \(program): the edits of \(url.lastPathComponent) cannot be replayed on program \(program): \((error as? LocalizedError)?.errorDescription ?? "\(error)")")
        }
        guard let source = chosen else {
            throw CLIError("--program \(program): \(document.movie.path) has no program \(program): \(document.media.missingProgram(program) ?? "")")
        }
        return source
    }

    /// The line `export --dry-run --fps` prints, and `info --fps` under its plan:
    /// `would write clip-slowpoke.mp4: 30 fps, 2 s, h264 high level 3.0 crf 20 preset medium`.
    static func wouldWrite(_ shown: String, fps: Rational, duration: Time, encoder: EncoderSettings) -> String {
        "would write \(shown): \(fps.shown) fps, \(duration.readable), \(ExportMovie.encoding(encoder))"
    }
}
