import Composition
import Foundation
import Export
import Project
import SafeFiles
import TimePitch

/// A batch's words for what the libraries state as facts: a failed job's message and an
/// export's warnings, with each ``Remedy`` said in a recipe's keys (see ``BatchRecipe``). A
/// remedy a recipe has no key for is left out; replacing an output, which the command that
/// runs the batch asks for, is left to it.
enum RecipeAdvice {
    /// The remedy in recipe keys, or nil when a recipe has no key for it.
    static func words(for remedy: Remedy) -> String? {
        switch remedy.option {
        case .constantRate: "set \"fps\" in \"export\"" + remedy.givesSuffix
        case .passthrough: "leave \"fps\" out of \"export\"" + remedy.givesSuffix
        case .container(let extensions) where extensions.isEmpty: "set \"container\" to another" + remedy.givesSuffix
        case .container(let extensions):
            "set \"container\" to " + extensions.map { "\"\($0)\"" }.joined(separator: " or ") + remedy.givesSuffix
        case .keyframeCuts, .frameExactCuts, .blendFrames, .codec, .replace: nil
        }
    }

    /// A failed job's message: the error's facts with the remedies a recipe can ask for, and a
    /// replacement, which only the command can ask for, as the notice's remedy.
    static func notice(for error: any Error) -> Notice {
        switch error {
        case ExportError.unavailable(let notice): Notice(notice.text(words))
        case ExportError.output(let refusal) where refusal.replaceable: Notice(refusal.description, remedies: [Remedy(.replace)])
        case let refusal as SafeFileError where refusal.replaceable: Notice(refusal.description, remedies: [Remedy(.replace)])
        case BatchError.notWrittenByBatch: Notice("\(error)", remedies: [Remedy(.replace)])
        case TimePitchError.semitonesWithVarispeed:
            "\"semitones\" works with the spectral and timeDomain algorithms; with \"algorithm\": \"varispeed\" the pitch follows the rate"
        default: Notice((error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
    }
}
