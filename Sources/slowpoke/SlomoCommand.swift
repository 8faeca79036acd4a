import ArgumentParser
import Composition
import Project
import Foundation

struct SlomoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slomo",
        abstract: "Slow a high-frame-rate clip down as the iPhone's Photos app shows it.",
        discussion: """
            A 120 or 240 fps clip copied off an iPhone plays at normal speed everywhere but in \
            Photos, because the slow section lives in the Photos library, not in the movie. \
            slomo puts it on the timeline: the range slows from 1x to the rate through a speed \
            ramp, plays at the rate, and speeds up again through a second ramp (each about \
            half a second of source, inside the range, built as `ramp` builds them). One edit: \
            one line in `history`, one `undo`; every export and the preview play the result.

            Where the range and rate come from, first found first: (1) --range and --rate, \
            when given (timeline time, as for `scale`); (2) the Photos sidecar beside the \
            movie, with its stem and the extension .AAE (IMG_0042.MOV → IMG_0042.AAE): its \
            slow-motion region and rate (a sidecar that cannot be read is an error naming it, \
            and the document is left unchanged); (3) Photos' defaults: 15% to 85% of the \
            clip, at 1/8 speed for 210 fps or more and 1/4 for 85 fps or more. \
            Below 85 fps slomo refuses ("not a high-frame-rate clip"); use `scale` or `ramp`.

            `info` shows the movie's com.apple.quicktime.full-frame-rate-playback-intent key \
            when it has one, and the capture rate an Android clip states \
            (com.android.capture.fps). A clip captured at 240 fps and stored for 30 fps playback \
            already plays at 1/8 speed throughout: --real-time plays it at the speed it was \
            filmed (one scale of the whole timeline), and slomo then slows a section of it as \
            for a 240 fps clip (Photos' 1/8 of the speed it was filmed, which is its stored speed).

            Examples:
              slowpoke slomo IMG_0042.MOV            # the sidecar's, or Photos' defaults
              slowpoke undo && slowpoke slomo --range 1.2-3.4   # that range instead
              slowpoke undo && slowpoke slomo --range 1.2-3.4 --rate 1/4
              slowpoke slomo PXL_0042.mp4 --real-time   # 240 fps stored for 30 fps
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("The slow range, START-END in timeline time (default: the sidecar's region, else 15% to 85% of the clip).", valueName: "range"), transform: RangeArgument.init(parsing:))
    var range: RangeArgument?

    @Option(name: [.customLong("rate"), .customLong("speed")], parsing: .unconditional, help: ArgumentHelp("The slow rate, below 1 and at least 1/32 (default: the sidecar's, else 1/8 from 210 fps, 1/4 from 85 fps).", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var rate: RateArgument?

    @Flag(help: "For a clip stored slower than it was captured (an Android 240 fps capture stored for 30 fps playback): play the whole clip at the speed it was filmed.")
    var realTime = false

    func validate() throws {
        if realTime && (range != nil || rate != nil) { throw ValidationError("--real-time plays the whole clip at the speed it was filmed; leave out --range and --rate") }
    }

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let before = try DocumentStore.read(url)
        if realTime {
            try playAtRealTime(url: url, before: before)
            return
        }
        let range = try self.range.map { try $0.value.resolved(timelineEnd: before.timeline.duration) }
        let request = try SlowMotionRequest(document: before, movie: DocumentStore.movieURL(of: before, at: url),
                                            range: range, rate: rate?.value)
        let edit = Edit.slowMotion(request.slowMotion)
        let duration = try Self.apply(edit, to: url, readAs: before)
        print("\(edit.summary), from \(request.origin); the timeline is now \(duration.shown) s")
    }

    /// Scales the whole timeline by the clip's capture rate over its stored rate.
    private func playAtRealTime(url: URL, before: ProjectDocument) throws {
        guard let rate = SlowMotionRequest.realTimeRate(of: before.media), let capture = before.media.captureFrameRate else {
            throw CLIError("\(before.movie.path) does not say it was captured faster than it plays (no com.android.capture.fps above its frame rate), so it already plays at the speed it was filmed")
        }
        guard !SlowMotionRequest.playsAtRealTime(before) else {
            throw CLIError("the timeline already plays \(before.movie.path) at the speed it was filmed (\(rate.shown)x its stored speed) where it is not slowed; `undo` to start over, or slomo to slow a section")
        }
        let edit = try Edit.scale(range: TimeRange(start: .zero, end: before.timeline.duration), rate: rate)
        let duration = try Self.apply(edit, to: url, readAs: before)
        print("\(edit.summary) (captured at \(Report.decimal(capture)) fps: the speed it was filmed); the timeline is now \(duration.shown) s")
    }

    /// Applies `edit` to the document at `url`, refused if it changed since it was read as
    /// `before`; the timeline's new length.
    private static func apply(_ edit: Edit, to url: URL, readAs before: ProjectDocument) throws -> Time {
        try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(ProjectError) in
            guard document.timeline == before.timeline else {
                throw .documentChanged("\(url.lastPathComponent) changed while slomo was reading it; run slomo again")
            }
            try document.apply(edit)
            return document.timeline.duration
        }
    }
}
