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
    @Option(name: .shortAndLong, help: ArgumentHelp("Show the plan of an export to this movie (as `export -o` takes it: .mp4, .mov, .mkv, .webm, or - for standard output); nothing is written.", valueName: "out"))
    var output: String?

    @Option(help: ArgumentHelp("With -o -: the stream the planned export writes, mkv, mp4 or ts (as `export --format`).", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("Show the plan of `export --fps N`: what becomes of every stream, the warnings that export gives before any work (bit depth, PQ in 8 bits, HDR10+, alpha, streams left out), and its encoder.", valueName: "N"))
    var fps: String?

    @Option(help: ArgumentHelp("With --fps: the codec of the planned export, h264, hevc, prores or vp9 (as `export --codec`).", valueName: "codec"))
    var codec: VideoCodec?

    @Option(help: ArgumentHelp("With --fps: the planned export's constant rate factor (as `export --crf`).", valueName: "Q"))
    var crf: Double?

    @Option(help: ArgumentHelp("With --fps: the planned export's encoder preset (as `export --preset`).", valueName: "P"))
    var preset: String?

    @Option(help: ArgumentHelp("For a transport stream with several programs: show the plan of exporting program N (as `export --program`).", valueName: "N"))
    var program: Int?

    func validate() throws {
        if let format, output != "-" {
            throw ValidationError("--format \(format) chooses the stream written to standard output; add -o -")
        }
        if let format, !StandardOutput.formats.contains(format) {
            throw ValidationError("--format takes \(StandardOutput.formats.joined(separator: ", ")), not \(format)")
        }
        if fps == nil && (crf != nil || preset != nil || codec != nil) {
            throw ValidationError("--codec, --crf and --preset plan a re-encoding export; add --fps N")
        }
    }

    /// The `--fps` export these flags plan, and the output it writes (named as the export's
    /// summary names it); nil without `--fps`.
    func constantRate(_ source: ExportSource, document: ProjectDocument, at url: URL) throws -> ConstantRatePlan? {
        guard let fps else { return nil }
        if source.media.primaryVideo == nil {
            throw CLIError("--fps sets a video frame rate, and \(document.movie.path) has no video; leave --fps out to see its audio export")
        }
        let rate = try ExportChoice.rate(fps)
        let target = try ExportChoice.target(output: output, format: format, document: document)
            ?? ExportChoice.constantRateOutput(document, at: url, source: source, fps: rate, codec: codec)
        let options = ConstantRateExporter.Options(fps: rate, codec: codec, crf: crf, preset: preset)
        // The export's own preview: the warnings come from the call the export makes before any work.
        let preview = Result { try ConstantRateExporter(source: source, output: target, options: options, settings: TimePitchSettings(), force: false).preview() }
        return ConstantRatePlan(fps: rate, output: ExportChoice.shown(target, output: output), duration: source.timeline.duration, preview: preview)
    }

    /// The output of the planned passthrough export: -o's, or the default for `document`.
    func passthroughOutput(_ document: ProjectDocument, at url: URL) -> URL {
        ExportChoice.target(output: output, format: format, document: document)
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
