import ArgumentParser
import Composition

/// A rate on the command line: `0.25`, `1/4`, `4`, `30000/1001`. Parsed exactly; whether it is
/// in range is checked by the library so every command says the same thing.
struct RateArgument: ExpressibleByArgument {
    let value: Rational

    init?(argument: String) {
        guard let value = try? Rational(parsing: argument) else { return nil }
        self.value = value
    }

    static var defaultCompletionKind: CompletionKind { .list(["0.25", "0.5", "2", "4"]) }
}

/// A time on the command line: `3.2`, `1/3`, `00:01:03.200`, or `end`.
struct TimeArgument: ExpressibleByArgument {
    let value: TimeExpression

    init?(argument: String) {
        guard let value = try? TimeExpression(parsing: argument) else { return nil }
        self.value = value
    }
}

/// A range on the command line: `3.2-5.0`, `1:00-1:30.5`, `8-end`.
struct RangeArgument: ExpressibleByArgument {
    let value: RangeExpression

    init?(argument: String) {
        guard let value = try? RangeExpression(parsing: argument) else { return nil }
        self.value = value
    }
}

/// The optional `[doc]` argument shared by the editing commands.
struct DocumentOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The project document (clip.slowpoke) or its movie (clip.mp4).",
        discussion: "Left out, the only *.slowpoke in the current folder is used. A movie's document is created if it does not exist yet.",
        valueName: "doc|movie"))
    var document: String?
}
