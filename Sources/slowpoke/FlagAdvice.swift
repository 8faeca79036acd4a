import Composition
import Export
import Interchange
import Foundation
import Preview
import Project
import SafeFiles
import TimePitch

/// The command line's words for what the libraries state as facts: an error's message with
/// the flags that would help, and each ``Remedy`` as a flag. Libraries never name a flag (a
/// batch recipe has none); this is where the flags are said.
enum FlagAdvice {
    /// The remedy as a flag.
    static func words(for remedy: Remedy) -> String {
        let gives = remedy.givesSuffix
        switch remedy.option {
        case .constantRate: return "export with --fps" + gives
        case .passthrough: return "export without --fps" + gives
        case .keyframeCuts: return "export with --keyframe-cuts" + gives
        case .frameExactCuts: return "export without --keyframe-cuts" + gives
        case .blendFrames: return "use --frames blend" + gives
        case .codec(let names): return "--codec " + names.joined(separator: " or ") + gives
        case .container(let extensions) where extensions.isEmpty: return "export to another container" + gives
        case .container(let extensions): return "export to ." + extensions.joined(separator: " or .") + gives
        case .replace: return "use --force to replace it" + gives
        }
    }

    /// A notice's facts with its remedies as flags; a remedy after the first drops the "export"
    /// they share: "(export to .mov or .mkv, or with --fps to re-encode it)".
    static func text(_ notice: Notice) -> String {
        var first = true
        return notice.text { remedy in
            let said = words(for: remedy)
            defer { first = false }
            return !first && said.hasPrefix("export ") ? String(said.dropFirst("export ".count)) : said
        }
    }

    /// The message `slowpoke: error:` shows for `error`: its facts, and the flags that would
    /// help where a library error says what would (nil for an error that is not a `LocalizedError`).
    static func message(for error: any Error) -> String? {
        switch error {
        case ExportError.unavailable(let notice): return text(notice)
        case ExportError.output(let refusal): return message(for: refusal)
        case ExportError.encoderSettings(let settings, let why):
            let flags = settings.map { switch $0 { case .crf: "--crf"; case .preset: "--preset" } }
            return flags.joined(separator: " and ") + " " + why
        case ProjectError.edit(let refusal): return message(for: refusal)
        case let refusal as SafeFileError where refusal.replaceable:
            let guess = if case .appeared = refusal { "another export to the same name? " } else { "" }
            return "\(refusal.description); \(guess)use --force to replace it"
        case OTIOError.unbound(let fact): return "\(fact); name the movie it plays with --movie"
        case let refusal as SidecarError:
            return (refusal.errorDescription ?? "") + ". Move it away to use Photos' defaults, or give both --range and --rate"
        case CompositionError.storedSlow(let fact):
            return fact + " (slomo --real-time plays it at the speed it was filmed; slomo then slows a section of it)"
        case CompositionError.regionEdited(let fact): return fact + "; give --range in timeline time, or undo those edits"
        case ProjectError.movieChanged(_, let movie, _):
            return "\(error). Restore the original, or start over with `slowpoke open --force \(movie)`"
        case TimePitchError.semitonesWithVarispeed:
            return "--semitones works with the spectral and timeDomain algorithms; with varispeed the pitch follows the rate"
        case let refusal as PreviewError where refusal.needsDisplay:
            if case .noDisplay = refusal { return "\(refusal), or with --no-video to hear it with keys from the terminal" }
            return "\(refusal) (is there a display? set DISPLAY, or use --no-video)"
        default: return (error as? LocalizedError)?.errorDescription
        }
    }
}
