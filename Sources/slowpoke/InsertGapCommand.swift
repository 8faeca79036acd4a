import ArgumentParser
import Composition
import Project
import Foundation

struct InsertGap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert-gap",
        abstract: "Insert an empty stretch (black and silence); what follows moves later.",
        discussion: """
            Examples:
              slowpoke insert-gap --at 5 --duration 2
              slowpoke insert-gap --at end --duration 1.5
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Where the gap starts: 5, 00:00:05, or end.", valueName: "time"), transform: TimeArgument.init(parsing:))
    var at: TimeArgument

    @Option(parsing: .unconditional, help: ArgumentHelp("How long the gap lasts: 2, 1/3, 00:00:02.", valueName: "duration"), transform: TimeArgument.init(parsing:))
    var duration: TimeArgument

    func validate() throws {
        if case .end = duration.value { throw ValidationError("--duration takes a length such as 2, not `end`") }
    }

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            let start = at.value.resolved(timelineEnd: timeline.duration)
            let length = duration.value.resolved(timelineEnd: timeline.duration)
            guard length > .zero else { throw .invalidRange("a gap needs a positive --duration, not \(length.readable)") }
            guard start <= timeline.duration else {
                throw .beyondTimeline("--at \(at.value.shown) is after the end of the timeline at \(timeline.duration.readable)")
            }
            return .insertGap(range: try TimeRange(start: start, duration: length))
        }
    }
}
