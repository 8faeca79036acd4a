import ArgumentParser
import Composition
import Project
import Foundation

/// Applies one edit to the document and reports the new timeline length.
func applyEdit(_ options: DocumentOptions, note: (_ before: Composition, _ after: Composition) -> String? = { _, _ in nil },
               _ makeEdit: (Composition) throws(CompositionError) -> Edit) throws {
    let url = try DocumentLocator.locate(options.document)
    let (edit, duration, said) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(CompositionError) in
        let before = document.timeline
        let edit = try makeEdit(before)
        try document.apply(edit)
        return (edit, document.timeline.duration, note(before, document.timeline))
    }
    print("\(edit.summary); the timeline is now \(duration.shown) s\(said.map { "; \($0)" } ?? "")")
}

/// What a scale over a range already scaled did: the rates there now (scales multiply).
func multipliedRates(in range: TimeRange, before: Composition, after: Composition, newLength: Time) -> String? {
    guard let track = before.tracks.first,
          track.segments.contains(where: { $0.target.overlaps(range) && $0.rate != nil && $0.rate != .one }),
          let scaled = try? TimeRange(start: range.start, duration: newLength), let edited = after.tracks.first
    else { return nil }
    var rates: [Rational] = []
    for segment in edited.segments where segment.target.overlaps(scaled) {
        if let rate = segment.rate, !rates.contains(rate) { rates.append(rate) }
    }
    guard let slowest = rates.min(), let fastest = rates.max() else { return nil }
    let span = slowest == fastest ? "\(slowest.shown)x" : "\(slowest.shown)x to \(fastest.shown)x"
    return "now \(span) there: scales multiply; undo to go back"
}

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
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The range to scale, START-END: 3.2-5.0, 00:01:00-00:01:30.5, 8-end.", valueName: "range"), transform: RangeArgument.init(parsing:))
    var range: RangeArgument

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
    }

    func run() throws {
        var scaled: (range: TimeRange, length: Time)?
        let note = { (before: Composition, after: Composition) -> String? in
            scaled.flatMap { multipliedRates(in: $0.range, before: before, after: after, newLength: $0.length) }
        }
        try applyEdit(options, note: note) { (timeline: Composition) throws(CompositionError) -> Edit in
            let range = try self.range.value.resolved(timelineEnd: timeline.duration)
            if let rate {
                let edit = try Edit.scale(range: range, rate: rate.value)
                if case .scale(_, let length) = edit { scaled = (range, length) }
                return edit
            }
            let length = duration!.value.resolved(timelineEnd: timeline.duration)
            guard length > .zero else { throw .invalidRange("--duration must be positive, not \(length)") }
            return .scale(range: range, toDuration: length)
        }
    }
}

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

    @Option(parsing: .unconditional, help: ArgumentHelp("The range to ramp, START-END: 2-4, 00:00:02-00:00:04.", valueName: "range"), transform: RangeArgument.init(parsing:))
    var range: RangeArgument

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
            let range = try self.range.value.resolved(timelineEnd: timeline.duration)
            return .ramp(try Ramp(range: range, from: from.value, to: to.value, ease: ease, steps: steps))
        }
    }
}

extension RampEase: ExpressibleByArgument {}

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
            guard length > .zero else { throw .invalidRange("a gap needs a positive --duration, not \(length)") }
            guard start <= timeline.duration else {
                throw .beyondTimeline("--at \(at.value) is after the end of the timeline at \(timeline.duration)")
            }
            return .insertGap(range: try TimeRange(start: start, duration: length))
        }
    }
}

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Undo the last edit.",
        discussion: "Example:\n  slowpoke undo")

    @OptionGroup var options: DocumentOptions

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let (edit, duration) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(CompositionError) in
            let edit = try document.undo()
            return (edit, document.timeline.duration)
        }
        print("undid: \(edit.summary); the timeline is now \(duration.shown) s")
    }
}

struct Redo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Redo the last undone edit.",
        discussion: "Example:\n  slowpoke redo")

    @OptionGroup var options: DocumentOptions

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let (edit, duration) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(CompositionError) in
            let edit = try document.redo()
            return (edit, document.timeline.duration)
        }
        print("redid: \(edit.summary); the timeline is now \(duration.shown) s")
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the edits, marking which are applied and which are undone.",
        discussion: "Example:\n  slowpoke history\n  slowpoke history --json")

    @OptionGroup var options: DocumentOptions

    @Flag(help: "Print the history as JSON.")
    var json = false

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        if json {
            try Terminal.printJSON(document.history)
            return
        }
        print(Report.history(document.history), terminator: "")
    }
}
