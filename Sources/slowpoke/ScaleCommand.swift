import ArgumentParser
import Composition
import Project
import Foundation

struct Scale: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a range of the timeline slower or faster.",
        discussion: """
            The range is in timeline time. Scaling a range that is already scaled multiplies the \
            rates: 0.5x of a 0.5x section plays at 0.25x. Everything after the range moves.

            Examples:
              slowpoke scale --range 3.2-5.0 --rate 0.25     # 1.8 s becomes 7.2 s
              slowpoke scale --range 1:00-end --rate 2       # double speed to the end
              slowpoke scale clip.slowpoke --range 0-2 --duration 5
              slowpoke scale --range 1-2,5-6 --rate 0.5      # one edit, one undo
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("The range to scale, START-END: 3.2-5.0, 00:01:00-00:01:30.5, 8-end. Several, as one edit: --range 1-2 --range 5-6, or 1-2,5-6.", valueName: "range"), transform: RangeListArgument.init(parsing:))
    var range: [RangeListArgument]

    @Option(name: [.customLong("rate"), .customLong("speed")], parsing: .unconditional, help: ArgumentHelp("Playback rate from 1/32 to 32: 0.25 or 1/4 is quarter speed, 2 is double (--speed is the same).", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var rate: RateArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("The new length of the range instead of a rate: 7.2, 1/3, 00:00:07.2.", valueName: "duration"), transform: TimeArgument.init(parsing:))
    var duration: TimeArgument?

    func validate() throws {
        if (rate == nil) == (duration == nil) {
            throw ValidationError("give exactly one of --rate and --duration")
        }
        if case .end? = duration?.value {
            throw ValidationError("--duration takes a length such as 7.2, not `end`")
        }
        if duration != nil, range.ranges.count > 1 {
            throw ValidationError("--duration gives one range its length; scale several ranges with --rate")
        }
    }

    func run() throws {
        var scaled: [(range: TimeRange, length: Time)] = []
        let note = { (before: Composition, after: Composition) -> String? in
            multipliedRates(in: scaled, before: before, after: after)
        }
        try applyEdit(options, note: note) { (timeline: Composition) throws(CompositionError) -> Edit in
            try rangeEdits(self.range.ranges, on: timeline) { (range: TimeRange) throws(CompositionError) -> Edit in
                if let rate {
                    let edit = try Edit.scale(range: range, rate: rate.value)
                    if case .scale(_, let length) = edit { scaled.append((range, length)) }
                    return edit
                }
                let length = duration!.value.resolved(timelineEnd: timeline.duration)
                guard length > .zero else { throw .invalidRange("--duration must be positive, not \(length.shown) s") }
                return .scale(range: range, toDuration: length)
            }
        }
    }
}
