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
              slowpoke remove --range 2-3,5-6        # two cuts, one edit, one undo
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("The range to remove, START-END. Several, as one edit: --range 0-1 --range 9-end, or 0-1,9-end.", valueName: "range"), transform: RangeListArgument.init(parsing:))
    var range: [RangeListArgument]

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            let edit = try rangeEdits(self.range.ranges, on: timeline) { (range: TimeRange) throws(CompositionError) -> Edit in
                guard try range != timeline.timeRange else {
                    throw .invalidRange("range \(range.shown) is the whole timeline; removing it would leave nothing")
                }
                return .remove(range: range)
            }
            var removed = Time.zero
            for case .remove(let range) in edit.parts { removed = try removed + range.duration }
            guard removed < timeline.duration else {
                throw .invalidRange("ranges \(self.range.ranges.map { "\($0)" }.joined(separator: ",")) cover the whole timeline; removing them would leave nothing")
            }
            return edit
        }
    }
}
