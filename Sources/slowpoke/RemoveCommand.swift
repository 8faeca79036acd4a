import ArgumentParser
import Composition
import Project
import Foundation

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cut a range out of the timeline; what follows moves earlier.",
        discussion: """
            Examples:
              slowpoke remove --range 0-1.5          # trim the first 1.5 s
              slowpoke remove --range 9-end          # trim the tail
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The range to remove, START-END.", valueName: "range"), transform: RangeArgument.init(parsing:))
    var range: RangeArgument

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            let range = try self.range.value.resolved(timelineEnd: timeline.duration)
            guard try range != timeline.timeRange else {
                throw .invalidRange("range \(self.range.value) is the whole timeline; removing it would leave nothing")
            }
            return .remove(range: range)
        }
    }
}
