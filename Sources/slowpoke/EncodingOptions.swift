import ArgumentParser
import Composition
import Export
import Foundation
import Media
import Project

/// The flags that choose where an export writes and how it encodes (-o, --format, --fps,
/// --codec, --crf, --preset): `export` writes with them and `info` shows the plan of the export
/// they choose. Declared, checked and turned into the library's options here, once; each
/// command's `--help` describes them in its own words (`Words`, see ``EncodingFlag/help``).
struct EncodingOptions<Words: EncodingWords>: ParsableArguments {
    @Option(name: .shortAndLong, help: Words.help(.output))
    var output: String?

    @Option(help: Words.help(.format))
    var format: String?

    @Option(help: Words.help(.fps))
    var fps: String?

    @Option(help: Words.help(.codec))
    var codec: VideoCodec?

    @Option(help: Words.help(.crf))
    var crf: Double?

    @Option(help: Words.help(.preset))
    var preset: String?

    /// What the flags say alone. A rate, a preset or a factor the encoder cannot take is the
    /// export's own refusal (exit 1, and `info`'s "export --fps refuses"), after reading the movie.
    func validate() throws {
        if let format, output != "-" {
            throw ValidationError("--format \(format) chooses the stream written to standard output; add -o -, or name the file (-o out.\(format == "ts" ? "mkv" : format))")
        }
        if let format, !StandardOutput.formats.contains(format) {
            throw ValidationError("--format takes \(StandardOutput.formats.joined(separator: ", ")), not \(format)")
        }
        let encoderFlags = [codec.map { _ in "--codec" }, crf.map { _ in "--crf" }, preset.map { _ in "--preset" }].compactMap { $0 }
        if fps == nil, !encoderFlags.isEmpty {
            throw ValidationError("\(Self.listed(encoderFlags)) \(encoderFlags.count == 1 ? "applies" : "apply") to re-encoding; add --fps N")
        }
    }

    /// The constant-rate export these flags choose (its rate, codec, factor and preset; the
    /// other options as the library's defaults), nil without `--fps`; a rate that cannot be
    /// read is the error `export` gives.
    func constantRate() throws -> ConstantRateExporter.Options? {
        guard let fps else { return nil }
        let rate: Rational
        do { rate = try FrameRateParser.parse(fps) } catch { throw CLIError("--fps \(error.description)") }
        return ConstantRateExporter.Options(fps: rate, codec: codec, crf: crf, preset: preset)
    }

    /// The output -o names: a file, or standard output in the stream form --format asks for
    /// or chosen from the movie; nil for the default name.
    func target(_ document: ProjectDocument) -> URL? {
        guard output == "-" else { return output.map { URL(fileURLWithPath: $0) } }
        return StandardOutput.url(format: format ?? StandardOutput.defaultFormat(forMovie: URL(fileURLWithPath: document.movie.path)))
    }

    /// The output of the constant-rate export `options` (from ``constantRate()``): -o's, or
    /// the default for `document` at that rate and codec.
    func target(_ options: ConstantRateExporter.Options, source: ExportSource, document: ProjectDocument, at url: URL) throws -> URL {
        try target(document) ?? DefaultOutput.movie(for: document, at: url, fps: options.fps,
                                                     encodingWebM: ConstantRateExporter.encodesWebM(source, codec: options.codec))
    }

    /// The output as the summary names it: as typed, `standard output (mkv)`, or the default's name.
    func shown(_ written: URL) -> String {
        StandardOutput.isStandardOutput(written) ? "standard output (\(written.pathExtension))" : output ?? written.lastPathComponent
    }

    /// `--crf`, `--crf and --preset`, `--codec, --crf and --preset`.
    static func listed(_ flags: [String]) -> String {
        flags.count < 2 ? flags.joined() : flags.dropLast().joined(separator: ", ") + " and " + flags[flags.count - 1]
    }
}

/// The command whose `--help` describes the ``EncodingOptions``: ``ExportWords`` or ``InfoWords``.
protocol EncodingWords {
    /// Which of each flag's descriptions is this command's.
    static var words: KeyPath<EncodingFlag.Help, String> { get }
}

extension EncodingWords {
    static func help(_ flag: EncodingFlag) -> ArgumentHelp {
        ArgumentHelp(flag.help[keyPath: words], valueName: flag.valueName)
    }
}

/// `export`'s words: what gets written.
enum ExportWords: EncodingWords {
    static var words: KeyPath<EncodingFlag.Help, String> { \.export }
}

/// `info`'s words: the plan of that export, nothing written.
enum InfoWords: EncodingWords {
    static var words: KeyPath<EncodingFlag.Help, String> { \.info }
}

/// One of the ``EncodingOptions``, and what each command's `--help` says of it.
enum EncodingFlag {
    case output, format, fps, codec, crf, preset

    /// What `export` and `info` say of a flag, side by side.
    struct Help {
        let export: String
        let info: String
    }

    var valueName: String {
        switch self {
        case .output: "out"
        case .format: "format"
        case .fps: "N"
        case .codec: "codec"
        case .crf: "Q"
        case .preset: "P"
        }
    }

    var help: Help {
        switch self {
        case .output: Help(export: "The movie to write: .mp4, .mov, .mkv or .webm (audio alone: .m4a, .wav, .flac, .mp3 or .opus); - for standard output.",
                           info: "Show the plan of an export to this movie (as `export -o` takes it: .mp4, .mov, .mkv, .webm, or - for standard output); nothing is written.")
        case .format: Help(export: "With -o -: the stream written, mkv, mp4 (fragmented) or ts (default: mp4 for an .mp4 or .mov movie, ts for a transport stream, else mkv).",
                           info: "With -o -: the stream the planned export writes, mkv, mp4 or ts (as `export --format`).")
        case .fps: Help(export: "Re-encode at this constant frame rate (30, 29.97, 30000/1001 …). Without it: passthrough.",
                        info: "Show the plan of `export --fps N`: what becomes of every stream, the warnings that export gives before any work (bit depth, PQ in 8 bits, HDR10+, alpha, streams left out), and its encoder.")
        case .codec: Help(export: "With --fps: the video codec, h264 (.mp4 .mov .mkv), hevc (.mp4 .mov .mkv), prores (ProRes 4444 with alpha, .mov .mkv) or vp9 (with alpha, .webm .mkv). Default: h264, or for a source with alpha the one that keeps it (prores in .mov, vp9 in .mkv and .webm).",
                          info: "With --fps: the codec of the planned export, h264, hevc, prores or vp9 (as `export --codec`).")
        case .crf: Help(export: "With --fps: constant rate factor, 0-51, lower is better (default: 20 for h264, 23 for hevc).",
                        info: "With --fps: the planned export's constant rate factor (as `export --crf`).")
        case .preset: Help(export: "With --fps: encoder speed preset, ultrafast … veryslow (default: medium).",
                           info: "With --fps: the planned export's encoder preset (as `export --preset`).")
        }
    }
}
