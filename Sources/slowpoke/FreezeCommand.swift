import ArgumentParser
import Composition
import Project

struct FreezeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "freeze",
        abstract: "Hold the frame on screen at a time for a while: a freeze frame.",
        discussion: """
            The picture on screen at --at (timeline time) stays there for --duration, then the \
            timeline goes on from where it stopped; everything after it moves later by the \
            duration. The audio is silent during the hold. A freeze is a hold, not a rate, so \
            the 1/32x limit of `scale` does not apply: hold a frame for a second or an hour. \
            It is one edit: one line in `history`, one `undo`.

            Export keeps it exact: passthrough lengthens the held frame's duration and \
            re-encodes nothing; `export --fps` repeats the frame; OpenTimelineIO writes a clip \
            with a FreezeFrame effect. `info` shows the hold as a row of its own (`freeze`).

            Examples:
              slowpoke freeze --at 3.2 --duration 2        # hold 3.2 s's picture 2 s
              slowpoke freeze --at 00:01:05 --duration 1/2
              slowpoke freeze clip.slowpoke --at 0 --duration 1.5   # open on a still
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The timeline time whose picture is held: 3.2, 00:00:03.2 (before the end of the timeline).", valueName: "time"), transform: TimeArgument.init(parsing:))
    var at: TimeArgument

    @Option(parsing: .unconditional, help: ArgumentHelp("How long the picture is held: 2, 1/2, 00:00:02.", valueName: "duration"), transform: TimeArgument.init(parsing:))
    var duration: TimeArgument

    func validate() throws {
        if case .end = duration.value { throw ValidationError("--duration takes a length such as 2, not `end`") }
    }

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            let start = at.value.resolved(timelineEnd: timeline.duration)
            let length = duration.value.resolved(timelineEnd: timeline.duration)
            guard length > .zero else { throw .invalidRange("a freeze needs a positive --duration, not \(length.readable)") }
            guard start >= .zero, start < timeline.duration else {
                throw .beyondTimeline("--at \(at.value.shown) is not before the end of the timeline at \(timeline.duration.readable); a freeze holds a picture that is on screen (use an earlier time)")
            }
            return .freeze(range: try TimeRange(start: start, duration: length))
        }
    }
}
