import ArgumentParser
import Composition
import Project
import Foundation

struct RampCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ramp",
        abstract: "Change the speed gradually along a range: a speed ramp.",
        discussion: """
            The rate moves from --from to --to along the range (timeline time, as for `scale`; \
            on an unscaled range that is source time), evenly (linear) or easing in and out \
            (smooth). It is built as constant-rate steps with exact boundaries, by default \
            steps of at most 1/15 s (at least 4), and applied as one edit: one line in \
            `history`, one `undo`. On a range that is already scaled, the ramp multiplies the \
            rates, as `scale` does.

            Each step plays at the rate that makes it last as long as the continuous ramp over \
            it, rounded so that its length is a multiple of 1/1024 of its source length. The \
            ramp's length is the exact sum of its steps and within 1/2048 s per second of \
            range of the continuous ramp: 2-4 from 1x to 0.25x lasts 3.69661 s (2839/768), \
            against (2/0.75)·ln 4 = 3.69678 s; over 2240 ramps from 1/32x to 32x the worst \
            measured was 0.34 ms per second of range.

            Examples:
              slowpoke ramp --range 2-4 --from 1 --to 0.25            # slow down into 2-4
              slowpoke ramp --range 6-7 --from 0.25 --to 1 --ease smooth
              slowpoke ramp clip.slowpoke --range 0-3 --from 1 --to 4 --steps 12
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("The range to ramp, START-END: 2-4, 00:00:02-00:00:04. Several, each ramped the same way, as one edit: --range 2-4 --range 6-8, or 2-4,6-8.", valueName: "range"), transform: RangeListArgument.init(parsing:))
    var range: [RangeListArgument]

    @Option(parsing: .unconditional, help: ArgumentHelp("The rate at the start of the range, 1/32 to 32.", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var from: RateArgument

    @Option(parsing: .unconditional, help: ArgumentHelp("The rate at the end of the range, 1/32 to 32.", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var to: RateArgument

    @Option(help: ArgumentHelp("linear (default): the rate changes evenly along the range; smooth: it eases in and out (smoothstep).", valueName: "ease"))
    var ease: RampEase = .linear

    @Option(help: ArgumentHelp("The number of constant-rate steps, 1 to 10000 (default: steps of at most 1/15 s, at least 4).", valueName: "n"))
    var steps: Int?

    func validate() throws {
        if let steps, !(1...Ramp.maximumSteps).contains(steps) {
            throw ValidationError("--steps takes 1 to \(Ramp.maximumSteps), not \(steps)")
        }
    }

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            try rangeEdits(self.range.ranges, on: timeline) { (range: TimeRange) throws(CompositionError) -> Edit in
                .ramp(try Ramp(range: range, from: from.value, to: to.value, ease: ease, steps: steps))
            }
        }
    }
}

extension RampEase: ExpressibleByArgument {}
