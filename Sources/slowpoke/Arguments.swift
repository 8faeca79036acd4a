import ArgumentParser
import Composition
import Export
import TimePitch
import Foundation

// Times, ranges and rates are parsed by the library through an option's `transform:`, so that a
// malformed value is refused with the library's own words ("range 5.0-3.2 ends before it
// starts") after ArgumentParser's "The value '5.0-3.2' is invalid for '--range <range>'".

/// A rate on the command line: `0.25`, `1/4`, `4`, `30000/1001`. Parsed exactly; whether it is
/// in range is checked by the library so every command says the same thing.
struct RateArgument {
    let value: Rational

    init(parsing argument: String) throws {
        value = try Rational(parsing: argument)
    }

    static let completion = CompletionKind.list(["0.25", "0.5", "2", "4"])
}

/// A time on the command line: `3.2`, `1/3`, `00:01:03.200`, or `end`.
struct TimeArgument {
    let value: TimeExpression

    init(parsing argument: String) throws {
        value = try TimeExpression(parsing: argument)
    }
}

/// A range on the command line: `3.2-5.0`, `1:00-1:30.5`, `8-end`.
struct RangeArgument {
    let value: RangeExpression

    init(parsing argument: String) throws {
        value = try RangeExpression(parsing: argument)
    }
}

/// One or more ranges on the command line: `3.2-5.0`, or `1-2,5-6`. `--range` may be given
/// again too; every range, from every `--range`, is edited at once (one edit, one undo).
struct RangeListArgument {
    let values: [RangeExpression]

    init(parsing argument: String) throws {
        values = try argument.split(separator: ",", omittingEmptySubsequences: false).map {
            try RangeExpression(parsing: String($0).trimmingCharacters(in: .whitespaces))
        }
    }
}

extension [RangeListArgument] {
    /// Every range given, in the order typed.
    var ranges: [RangeExpression] { flatMap(\.values) }
}

/// The optional `[doc]` argument shared by the editing commands.
struct DocumentOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The project document (clip.slowpoke) or its movie (clip.mp4).",
        discussion: "Left out, the only *.slowpoke in the current folder is used. A movie's document is created if it does not exist yet.",
        valueName: "doc|movie"), completion: .file())
    var document: String?
}

/// The audio and output flags shared by `export` and `stretch`.
struct AudioOutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Audio algorithm: spectral (best, default), timeDomain (faster, speech) or varispeed (pitch follows speed).", valueName: "algorithm"))
    var algorithm: TimePitchAlgorithm = .spectral

    @Option(parsing: .unconditional, help: ArgumentHelp("Shift the pitch by -24 to +24 semitones (spectral and timeDomain only).", valueName: "n"))
    var semitones: Double = 0

    @Option(help: ArgumentHelp("Progress on stderr: auto (a bar on a terminal, plain lines otherwise), bar, json or none.", valueName: "style"))
    var progress: ProgressStyle = .auto

    @Flag(help: "Replace the output if it exists.")
    var force = false

    /// The time-pitch settings, checked.
    func settings() throws -> TimePitchSettings {
        try TimePitchSettings(algorithm: algorithm, semitones: semitones)
    }
}

extension VideoCodec: ExpressibleByArgument {}
extension FrameSelection: ExpressibleByArgument {}
extension InterpolationQuality: ExpressibleByArgument {}
