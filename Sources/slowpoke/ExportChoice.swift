import ArgumentParser
import Batch
import Composition
import Export
import Foundation
import Media
import Project

/// What `export` and `info`'s plan of an export both read from their flags, said once: the
/// program exported, where the movie goes, and the encoder as the summary names it.
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

    /// The output `-o` names: a file, or standard output in the stream form `format` asks for
    /// or chosen from the movie; nil for the default name.
    static func target(output: String?, format: String?, document: ProjectDocument) -> URL? {
        guard output == "-" else { return output.map { URL(fileURLWithPath: $0) } }
        return StandardOutput.url(format: format ?? StandardOutput.defaultFormat(forMovie: URL(fileURLWithPath: document.movie.path)))
    }

    /// The output as the summary names it: as typed (`output`, -o's value), `standard output
    /// (mkv)`, or the default's name.
    static func shown(_ written: URL, output: String?) -> String {
        StandardOutput.isStandardOutput(written) ? "standard output (\(written.pathExtension))" : output ?? written.lastPathComponent
    }

    /// `--fps N` as an exact rate, or the error `export` gives for a rate it cannot read.
    static func rate(_ fps: String) throws -> Rational {
        do { return try FrameRateParser.parse(fps) } catch { throw CLIError("--fps \(error.description)") }
    }

    /// The default output of an `--fps` export of `source` with `codec` (nil: the default).
    static func constantRateOutput(_ document: ProjectDocument, at url: URL, source: ExportSource, fps: Rational, codec: VideoCodec?) throws -> URL {
        DefaultOutput.movie(for: document, at: url, fps: fps, encodingWebM: try ConstantRateExporter.encodesWebM(source, codec: codec))
    }

    /// The line `export --dry-run --fps` prints, and `info --fps` under its plan:
    /// `would write clip-slowpoke.mp4: 30 fps, 2 s, h264 high level 3.0 crf 20 preset medium`.
    static func wouldWrite(_ shown: String, fps: Rational, duration: Time, encoder: EncoderSettings) -> String {
        "would write \(shown): \(fps.shown) fps, \(duration.readable), \(ExportMovie.encoding(encoder))"
    }
}
