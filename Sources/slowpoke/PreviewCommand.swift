import ArgumentParser
import Composition
import Project
import Foundation
import Media
import Preview
import TimePitch

struct PreviewMovie: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Play the timeline with live rate and pitch control, and mark and scale sections while watching.",
        discussion: """
            A window plays the timeline with its edits applied; the audio is the clock and the \
            video follows it. The preview opens paused: press space to play. Edits made with \
            [ ] and Enter are saved to the document at once (locked and replaced atomically, so \
            closing the window never leaves half a document).

            The timeline strip along the bottom of the window draws each section by its speed \
            (higher is faster, on the log scale of `info`'s speed graph; slow blue, 1x grey, \
            fast amber, reversed magenta with ◀ marks, freezes cyan, gaps empty), the marks in \
            yellow and the playhead in white, with the times at its ends. The status shows the \
            key rate and, where a section changes it, the speed heard there. Every message \
            also shows in the window for a few seconds. With --no-video the status line carries \
            the same timeline as text (▁ … █ by speed, ◀ reversed, = frozen, · gap, [ ] marks, \
            | playhead).

            Keys and mouse:
            \(previewKeyHelp.map { "  \($0.keys.padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.action)" }.joined(separator: "\n"))

            The rate ladder is 1/32, 1/16, 1/8, 1/4, 1/2, 3/4, 1, 1.25, 1.5, 2, 4, 8, 16, 32.

            Examples:
              slowpoke preview clip.mp4                        # window, 1x, spectral
              slowpoke preview --rate 1/4 --algorithm timeDomain # quarter speed, cheaper
              slowpoke preview clip.slowpoke --no-video        # sound only; keys from here
              slowpoke preview --stabilize                     # steadied like export
            """)

    @OptionGroup var options: DocumentOptions

    @Option(name: [.customLong("rate"), .customLong("speed")], parsing: .unconditional, help: ArgumentHelp("Start at this rate, from 1/32 to 32 (← and → then step along the ladder).", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var rate: RateArgument?

    @Option(help: ArgumentHelp("Audio algorithm: spectral (default, as export's: what you hear is what you export), timeDomain (cheaper) or varispeed (pitch follows speed).", valueName: "algorithm"))
    var algorithm: TimePitchAlgorithm = .spectral

    @Option(parsing: .unconditional, help: ArgumentHelp("Shift the pitch by -24 to +24 semitones (spectral and timeDomain only).", valueName: "n"))
    var semitones: Int = 0

    @Option(help: ArgumentHelp("Timeline time to start at: 3.2, 00:01:03.2, 1/3.", valueName: "time"), transform: TimeArgument.init(parsing:))
    var start: TimeArgument?

    @Flag(help: "Audio only, without a window; keys are read from the terminal.")
    var noVideo = false

    @Flag(help: "Start playing at once instead of paused.")
    var play = false

    @Option(help: ArgumentHelp("Show the pictures steadied with libvidstab, as export --stabilize steadies them: the camera's path smoothed over S frames either side (1-100; --stabilize alone: 10). The analysis export keeps in <document>.slowpoke-stab is used; when there is none, it is made (and kept, for export too) before the preview opens. v switches between steadied and as filmed; playing backwards shows the pictures as filmed.", valueName: "S"))
    var stabilize: Int?

    @Option(help: ArgumentHelp("With --stabilize: zoom (the default: zoomed in just enough that no edge shows) or keep (the whole picture, the edges filled from the previous picture).", valueName: "b"))
    var stabilizeBorders: Stabilization.Borders?

    func validate() throws {
        if abs(semitones) > 24 { throw ValidationError("--semitones must be between -24 and 24, not \(semitones)") }
        if algorithm == .varispeed && semitones != 0 {
            throw ValidationError("--semitones does not apply to varispeed, whose pitch follows the rate")
        }
        if stabilizeBorders != nil && stabilize == nil { throw ValidationError("--stabilize-borders says how --stabilize fills the edges; add --stabilize") }
        if noVideo && stabilize != nil { throw ValidationError("--stabilize steadies the pictures, and --no-video shows none; leave one out") }
    }

    func run() throws {
        // Ctrl-C and SIGTERM end the session between keys (never inside a save) with status
        // 130; installed before SDL starts, so SDL leaves them to us. A connection that breaks
        // (the X server gone) ends the preview through Xlib's error, which says so, rather than
        // silently by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        let timeline = document.timeline
        let rate = rate?.value ?? .one
        try PlaybackRate.validate(rate)
        let startTime = start?.value.resolved(timelineEnd: timeline.duration) ?? .zero
        guard startTime <= timeline.duration else {
            throw CLIError("--start \(start!.value.shown) is after the end of the timeline at \(timeline.duration.readable)")
        }
        // Raw mode before the audio is made (which takes a while): keys typed meanwhile are not
        // echoed, and are dropped rather than played when the player starts.
        let terminal = noVideo ? TerminalKeys() : nil
        var previewOptions = PreviewOptions(document: url, rate: rate, algorithm: algorithm, semitones: semitones,
                                            start: startTime, video: !noVideo, autoplay: play)
        let environment = ProcessInfo.processInfo.environment
        // For measuring what the strip costs a frame (README, "Preview"): off, and the timing printed.
        previewOptions.strip = environment["SLOWPOKE_PREVIEW_STRIP"] != "off"
        // For measuring the preview's timing in its own clock (see ClockLog): written on the way out.
        let clockLogPath = environment["SLOWPOKE_PREVIEW_CLOCK_LOG"]
        previewOptions.clockLog = clockLogPath != nil
        previewOptions.videoLag = environment["SLOWPOKE_PREVIEW_VIDEO_LAG"].flatMap(Double.init) ?? 0
        // For measuring the motion on screen (tests): each picture shown, as 8-bit grey.
        previewOptions.pictureDump = environment["SLOWPOKE_PREVIEW_PICTURE_DUMP"].map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let stabilize {
            // q before the analysis is done: nothing plays, and nothing of the analysis is kept.
            guard let analysis = try steadying(stabilize, document: document, at: url, options: &previewOptions) else { return }
            Terminal.note(analysis)
        }
        let player: Player
        do {
            player = try Player(options: previewOptions)
        } catch {
            terminal?.restore()
            throw error
        }
        terminal?.discardPending()
        let statusLine = StatusLine(enabled: noVideo)
        let summary: PreviewSummary
        do {
            defer { terminal?.restore() }
            summary = try player.run(keys: { terminal?.next() }, status: { statusLine.show($0) }, message: { statusLine.note($0) },
                                     interrupted: { Interrupt.received })
        }
        statusLine.finish()
        if let clockLogPath {
            try Data(summary.clock.lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: clockLogPath))
        }
        for note in summary.saved { print(note) }
        if !summary.saved.isEmpty { print("the timeline is now \(summary.duration.shown) s") }
        if environment["SLOWPOKE_PREVIEW_FRAME_TIMES"] == "1" {
            let t = summary.frameTiming
            Terminal.note(String(format: "frame timing: %d frames drawn; present median %.3f ms, mean %.3f ms; the strip's drawing median %.3f ms, mean %.3f ms, slowest %.3f ms",
                                 t.frames, FrameTiming.median(t.present), FrameTiming.mean(t.present),
                                 FrameTiming.median(t.strip), FrameTiming.mean(t.strip), FrameTiming.slowest(t.strip)))
            if let s = summary.steadying {
                Terminal.note(String(format: "steadying: %d pictures; median %.3f ms a picture (decoding, copying and the transform), the copy and transform %.3f ms; %d restarts",
                                     s.pictures, s.medianWhole, s.medianTransform, s.restarts))
            }
        }
        if summary.interrupted { throw PreviewInterrupted() }
    }
}

/// The preview ended by SIGINT or SIGTERM: exit status 130. Edits saved before stay saved.
struct PreviewInterrupted: LocalizedError, CustomStringConvertible {
    var description: String { "interrupted; the document holds every edit saved before" }
    var errorDescription: String? { description }
}


/// The status of `--no-video` mode on stderr, its line and the timeline's below it: redrawn in
/// place on a terminal, as they come otherwise.
final class StatusLine {
    private let enabled: Bool
    private let isTerminal = isatty(STDERR_FILENO) != 0
    /// Lines on screen to draw over.
    private var drawn = 0

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ text: String) {
        guard enabled else { return }
        if isTerminal {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            FileHandle.standardError.write(Data((clear() + lines.joined(separator: "\n\u{1B}[K")).utf8))
            drawn = lines.count
        } else {
            FileHandle.standardError.write(Data("\(text)\n".utf8))
        }
    }

    func note(_ message: String) {
        if drawn > 0 { FileHandle.standardError.write(Data(clear().utf8)) }
        drawn = 0
        Terminal.note(message)
    }

    func finish() {
        if drawn > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    /// Back to the start of the first line drawn, each cleared on the way up.
    private func clear() -> String {
        "\r\u{1B}[K" + String(repeating: "\u{1B}[1A\r\u{1B}[K", count: max(0, drawn - 1))
    }
}
