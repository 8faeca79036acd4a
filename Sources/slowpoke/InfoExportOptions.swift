import ArgumentParser
import Batch
import Composition
import Export
import Foundation
import Media
import Project
import TimePitch

/// The flags of `export` that choose the export `info` plans: its output, its program, and
/// with `--fps` a constant-rate export and its encoder. Without them `info` shows the default
/// passthrough export.
struct InfoExportOptions: ParsableArguments {
    @OptionGroup var encoding: EncodingOptions<InfoWords>

    @Option(help: ArgumentHelp("For a transport stream with several programs: show the plan of exporting program N (as `export --program`).", valueName: "N"))
    var program: Int?

    /// The `--fps` export these flags plan, and the output it writes (named as the export's
    /// summary names it); nil without `--fps`.
    func constantRate(_ source: ExportSource, document: ProjectDocument, at url: URL) throws -> ConstantRatePlan? {
        guard encoding.fps != nil else { return nil }
        if source.media.primaryVideo == nil {
            throw CLIError("--fps sets a video frame rate, and \(document.movie.path) has no video; leave --fps out to see its audio export")
        }
        guard let options = try encoding.constantRate() else { return nil }
        let target = try encoding.target(options, source: source, document: document, at: url)
        // The export's own preview: the warnings come from the call the export makes before any work.
        let preview = Result { try ConstantRateExporter(source: source, output: target, options: options, settings: TimePitchSettings(), force: false).preview() }
        return ConstantRatePlan(fps: options.fps, output: encoding.shown(target), duration: source.timeline.duration, preview: preview)
    }

    /// The output of the planned passthrough export: -o's, or the default for `document`.
    func passthroughOutput(_ document: ProjectDocument, at url: URL) -> URL {
        encoding.target(document)
            ?? (document.media.primaryVideo == nil ? DefaultOutput.audio(for: document, at: url) : DefaultOutput.movie(for: document, at: url))
    }
}

/// An `--fps` export as `info --fps` shows it: the export's ``ConstantRateExporter/Preview``,
/// or why it refuses before any work.
struct ConstantRatePlan {
    let fps: Rational
    /// The output as the export's summary names it.
    let output: String
    let duration: Time
    let preview: Result<ConstantRateExporter.Preview, any Error>

    /// The line `export --dry-run --fps` prints; nil when the export refuses.
    var wouldWrite: String? {
        (try? preview.get()).map { ExportChoice.wouldWrite(output, fps: fps, duration: duration, encoder: $0.encoder) }
    }

    /// Why the export refuses, in the words `export` would print; nil when it would run.
    var refusal: String? {
        guard case .failure(let error) = preview else { return nil }
        return FlagAdvice.message(for: error) ?? error.localizedDescription
    }
}
