public import Composition
public import Project
public import Foundation
import TimePitch
internal import CSDL2
import Media

/// The player: a window (or none) showing the composition's video at the time of the audio
/// being heard, the live time-pitch engine for the audio, and the keys that steer both and
/// edit the document.
///
/// The audio clock is the master: video frames are chosen by the composition time of the audio
/// leaving the device (``AudioFeeder/heardPosition``). Without an audio track the clock is the
/// wall clock times the rate. All SDL calls but the audio feeder's happen on the thread that
/// calls ``run(keys:status:message:)``.
public final class Player {
    public let options: PreviewOptions
    public internal(set) var settings: PlaybackSettings
    var document: ProjectDocument
    var composition: Composition
    let movie: URL
    private let session: SDLSession
    var feeder: AudioFeeder?
    var video: VideoView?
    var reader: VideoFrameReader?
    /// Pictures for video that runs backwards (a reversed range, or `J`).
    var backwardFrames: BackwardPictureCache?
    /// The steadied pictures, with `--stabilize` (shown going forwards; `v` switches).
    var steadied: SteadiedVideo?
    /// The movie's audio tracks and the one playing (`t` moves on).
    var audioChoice: AudioTrackChoice
    /// The audio track `t` asked for, being made.
    var preparingAudio: PreparedAudio?
    /// The text subtitle track shown at the bottom (`s` shows or hides it), if the movie has
    /// one; its cues once read (in the background: that reads the whole file).
    var subtitleStream: PlayableStream?
    var subtitles: SubtitleTimeline?
    var readingSubtitles: (work: BackgroundWork<[SubtitleCue]>, segments: [CompositionTrackSegment])?
    var showSubtitles = false
    /// Wall clock, when there is no audio: composition seconds at `wallAnchor`.
    var wallPosition: Double = 0
    var wallAnchor = Date()
    /// Whether the composition audio's scaled sections were rendered with varispeed.
    var audioIsVarispeed: Bool
    /// The source time of the picture on screen, when it came from the forward decoder.
    private var shownSource: Double?
    /// Whether the key list is on screen (h).
    private var showHelp = false
    var summary = PreviewSummary()
    /// The messages also shown in the window, for a few seconds each.
    var screenMessages = ScreenMessages()
    /// A mouse drag on the timeline strip, while the button is held.
    var drag: Drag?

    public init(options: PreviewOptions) throws {
        self.options = options
        document = try DocumentStore.read(options.document)
        composition = document.timeline
        movie = DocumentStore.movieURL(of: document, at: options.document)
        guard composition.duration > .zero else {
            throw PreviewError.nothingToPlay("\(options.document.lastPathComponent) has an empty timeline; undo the edit that emptied it")
        }
        let algorithm = options.algorithm
        audioIsVarispeed = algorithm == .varispeed
        settings = PlaybackSettings(rate: options.rate, algorithm: algorithm, semitones: options.semitones)
        summary.clock = ClockLog(enabled: options.clockLog)
        let hasVideo = !composition.tracks(withMediaType: .video).isEmpty
        session = try SDLSession(video: options.video)
        let start = min(max(options.start, .zero), composition.duration).seconds
        let streams = try? PlayableStreams.of(movie)
        audioChoice = AudioTrackChoice(tracks: streams?.audio ?? [])
        if let track = composition.tracks(withMediaType: .audio).first {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: algorithm == .varispeed, stream: audioChoice.stream)
            feeder = try AudioFeeder(audio: audio, settings: settings, at: start * Double(audio.format.sampleRate))
        }
        wallPosition = start
        if options.video {
            // The document's primary video stream (its program's), the one export writes and steadies.
            if hasVideo { reader = try VideoFrameReader(url: movie, stream: document.media.primaryVideo?.index, threads: 2) }
            backwardFrames = reader.map { BackwardPictureCache(reader: $0) }
            // HDR pictures are tone-mapped at (at most) the window's size, not at 4K (steadied
            // ones at the analysis's size).
            if options.stabilization == nil { reader?.limitToneMappedPictures(toFit: 960, 720) }
            if let reader, let stabilization = options.stabilization, let analysis = options.stabilizationAnalysis {
                steadied = try SteadiedVideo(reader: reader, stabilization: stabilization, prepared: analysis)
            }
            // Shown as ffplay shows it: the stream's sample aspect and display-matrix rotation applied.
            let stream = document.media.primaryVideo
            let shape = DisplayShape(width: reader?.pictureWidth ?? 640, height: reader?.pictureHeight ?? 360,
                                     rotation: reader == nil ? nil : stream?.rotation,
                                     sampleAspectRatio: reader == nil ? nil : stream?.sampleAspectRatio)
            video = try VideoView(shape: shape,
                                  title: "slowpoke preview — \(movie.lastPathComponent)")
            loadSubtitles(from: streams?.subtitles ?? [])
        }
    }

    deinit {
        // SDL objects go before the SDL session that made them (TTF_Quit before TTF_CloseFont
        // crashes).
        feeder?.stop()
        feeder = nil
        video = nil
    }

    /// The composition time being heard (or, without audio, shown).
    public var currentTime: Time {
        let seconds: Double
        if let feeder {
            seconds = feeder.heardPosition / Double(feeder.format.sampleRate)
        } else {
            let direction: Double = settings.backwards ? -1 : 1
            seconds = wallPosition + (settings.playing ? Date().timeIntervalSince(wallAnchor) * settings.rate.doubleValue * direction : 0)
        }
        return PlaybackClock.time(seconds: seconds)
    }

    /// Plays until q, Esc, a closed window, SDL's quit event (SIGINT or SIGTERM, when the caller
    /// left them to SDL) or `interrupted` returns true. `keys` is polled for keys that do not
    /// come from the window (the terminal, in `--no-video` mode); `status` receives the status
    /// line whenever it changes (at most every 100 ms; without a window, with the timeline
    /// strip as text on a second line); `message` receives notes such as a saved
    /// edit or a refused key. `interrupted` is asked once per turn of the loop, between keys, so
    /// an interruption never lands inside a save: the summary then says `interrupted`.
    public func run(keys: () -> PreviewKey? = { nil }, status: (String) -> Void = { _ in },
                    message report: (String) -> Void = { _ in },
                    interrupted: () -> Bool = { false }) throws -> PreviewSummary {
        // Every message is printed and shown in the window too.
        func message(_ text: String) {
            report(text)
            if options.video { screenMessages.add(text) }
        }
        feeder?.start()
        defer { feeder?.stop() }
        if options.autoplay { try handle(.playPause, message: message) }
        var lastStatus = ""
        var lastStatusTime = Date.distantPast
        var drawn = Drawn()
        while true {
            if interrupted() {
                summary.interrupted = true
                break
            }
            if let error = feeder?.error { throw error }
            var pressed: [PreviewKey] = []
            var (quit, changed) = try pollWindowEvents(into: &pressed, message: message)
            while let key = keys() {
                pressed.append(key)
                if key == .quit { break }
            }
            for key in pressed {
                if key == .quit { quit = true; break }
                try handle(key, message: message)
            }
            if quit { break }
            try adoptPreparedAudio(message: message)
            adoptSubtitles(message: message)
            let shown = try stopAtTheEnds(message: message)
            if !options.video { summary.clock.add(.tick, feeder: feeder, clock: shown.seconds) }
            let variants = statusVariants(at: shown)
            // Without a window the timeline follows as a second line of text.
            let line = variants[0] + (options.video ? "" : "\n" + stripText(at: shown))
            let statusDue = line != lastStatus && (Date().timeIntervalSince(lastStatusTime) >= 0.1 || !pressed.isEmpty || changed)
            if statusDue {
                status(line)
                lastStatus = line
                lastStatusTime = Date()
                drawn.status = variants
            }
            if video != nil {
                try draw(at: shown, statusDue: statusDue, changed: changed || !pressed.isEmpty, drawn: &drawn)
            }
            SDL_Delay(4)
        }
        summary.duration = composition.duration
        summary.steadying = steadyingCost
        return summary
    }

    /// Pauses at either end of the timeline, playing forwards or backwards; the time to show.
    private func stopAtTheEnds(message: (String) -> Void) throws -> Time {
        var now = currentTime
        if settings.playing && !settings.backwards && now >= composition.duration {
            try setPlaying(false)
            try seek(to: composition.duration)
            now = composition.duration
            message("end of the timeline")
        }
        if settings.playing && settings.backwards && now <= .zero {
            try setPlaying(false)
            try setDirection(backwards: false)
            now = .zero
            message("start of the timeline")
        }
        return min(now, composition.duration)
    }

    /// The status at `t`, from the whole line to the shortest, with the speed of the section
    /// there and the notes.
    func statusVariants(at t: Time) -> [String] {
        let track = composition.tracks(withMediaType: .video).first ?? composition.tracks.first
        let section = (try? track?.presentation(at: min(t, composition.duration - PlaybackClock.tick)))??.segment
        return settings.statusVariants(time: t, duration: composition.duration, section: section, notes: overlayNotes)
    }

    /// The timeline strip as text, for the status line without a window.
    func stripText(at t: Time) -> String {
        let segments = (composition.tracks(withMediaType: .video).first ?? composition.tracks.first)?.segments ?? []
        return TimelineStrip.text(segments: segments, duration: composition.duration, columns: 32, time: t,
                                  markIn: settings.markIn, markOut: settings.markOut)
    }

    /// What the window showed last, to draw again only when something changed.
    struct Drawn {
        /// The status variants shown (renewed at most every 100 ms, or at once after a key).
        var status: [String] = [""]
        var time: Time?
        var subtitle: String?
        var messages: [String] = []
    }

    /// Shows the frame at `t` and the overlays, when anything on screen changed.
    private func draw(at t: Time, statusDue: Bool, changed: Bool, drawn: inout Drawn) throws {
        guard let video else { return }
        let frameChanged = try showVideo(at: options.videoLag > 0 ? PlaybackClock.time(seconds: t.seconds - options.videoLag) : t)
        let subtitle = showSubtitles ? subtitles?.text(at: t) : nil
        let messages = screenMessages.visible()
        guard frameChanged || statusDue || changed || drawn.time == nil || subtitle != drawn.subtitle
                || messages != drawn.messages || (drag != nil && drawn.time != t) else { return }
        if statusDue { video.setTitle("slowpoke — \(drawn.status[0])") }
        let segments = (composition.tracks(withMediaType: .video).first ?? composition.tracks.first)?.segments ?? []
        let strip = options.strip ? StripState(segments: segments, duration: composition.duration, time: t,
                                                markIn: settings.markIn, markOut: settings.markOut) : nil
        let started = DispatchTime.now().uptimeNanoseconds
        let stripTime = video.present(VideoView.Overlay(status: drawn.status, subtitle: subtitle, help: showHelp ? previewKeyHelp : nil,
                                                        messages: messages, strip: strip))
        summary.frameTiming.add(present: DispatchTime.now().uptimeNanoseconds - started, strip: stripTime)
        summary.clock.add(.frame, feeder: feeder, clock: t.seconds, source: shownSource)
        drawn.time = t
        drawn.subtitle = subtitle
        drawn.messages = messages
    }

    // MARK: Video

    /// Shows the frame for composition time `t`; true if a new frame was decoded.
    private func showVideo(at t: Time) throws -> Bool {
        guard let video else { return false }
        guard let reader, let track = composition.tracks(withMediaType: .video).first,
              let presentation = try track.presentation(at: min(t, try track.duration - PlaybackClock.tick)),
              let source = presentation.sourceTime
        else {
            video.clearFrame()
            shownSource = nil
            return false
        }
        // Too fast to decode every frame: let the decoder drop what nothing refers to, or keep
        // only keyframes. Audio is unaffected.
        let effective = settings.rate.doubleValue * (presentation.rate?.doubleValue ?? 1)
        let fps = 1 / (reader.nominalFrameDuration ?? (1.0 / 30))
        let framesPerSecond = effective * fps
        reader.skipping = framesPerSecond > 960 ? .keyframesOnly : framesPerSecond > 200 ? .nonReference : .none
        // The source runs backwards in a reversed range, or everywhere while `J` plays: the
        // picture on screen is the one before the source time reached, from decoded stretches.
        if let backwardFrames, presentation.segment.isReversed != (settings.backwards && settings.playing) {
            reader.skipping = .none
            let before = presentation.segment.isReversed ? (try? source - PlaybackClock.tick) ?? source : source
            guard try backwardFrames.show(at: before) else { return false }
            try backwardFrames.withPlanes { planes, linesizes in video.update(planes: planes, linesizes: linesizes) }
            steadied?.forgetShown()
            shownSource = nil
            return true
        }
        backwardFrames?.clear()
        if let steadied, steadied.isOn {
            let (changed, shown) = try showSteadied(steadied, at: source, on: video)
            shownSource = shown
            return changed
        }
        steadied?.forgetShown()
        guard try reader.show(at: source) else { return false }
        try reader.withPlanes { planes, linesizes in video.update(planes: planes, linesizes: linesizes) }
        shownSource = reader.currentTime?.seconds
        dumpReaderPicture()
        return true
    }

    // MARK: Keys

    private func handle(_ key: PreviewKey, message: (String) -> Void) throws {
        summary.clock.add(.key, "\(key)", feeder: feeder, clock: currentTime.seconds)
        switch key {
        case .playPause:
            // Space after `J` pauses; space again plays forwards.
            if !settings.playing && settings.backwards { try setDirection(backwards: false) }
            try setPlaying(!settings.playing)
        case .playBackwards:
            if currentTime <= .zero { return message("at the start of the timeline: nothing to play backwards") }
            try setDirection(backwards: true)
            if !settings.playing { try setPlaying(true) }
        case .slower, .faster:
            settings.stepRate(key == .faster ? 1 : -1)
            try applySettings()
        case .pitchUp, .pitchDown:
            settings.stepPitch(key == .pitchUp ? 1 : -1)
            try applySettings()
        case .chipmunk:
            settings.toggleChipmunk()
            try applySettings()
        case .toggleStretch:
            settings.toggleStretch()
            try applySettings()
        case .stepBack, .stepForward:
            guard !settings.playing else {
                message("pause (space) before stepping frame by frame")
                return
            }
            try seek(to: try frameStep(from: currentTime, forward: key == .stepForward))
        case .seekBack, .seekForward:
            let t = currentTime.seconds + (key == .seekForward ? 5 : -5)
            try seek(to: PlaybackClock.time(seconds: t))
        case .markStart: settings.markIn = currentTime
        case .markEnd: settings.markOut = currentTime
        case .apply: try applyEdit(message: message)
        case .undo: try undo(message: message)
        case .help:
            // Without a window the keys go to the message line, one per line.
            guard options.video else {
                return message("keys: " + previewKeyHelp.map { "\($0.keys) \($0.action)" }.joined(separator: "; "))
            }
            showHelp.toggle()
        case .nextAudioTrack: try nextAudioTrack(message: message)
        case .steady: toggleSteadied(message: message)
        case .subtitles:
            guard subtitleStream != nil else {
                return message(options.video ? "this movie has no text subtitles" : "subtitles show in the window only")
            }
            showSubtitles.toggle()
        case .quit: break
        }
    }

    /// Plays on from where it is, backwards or forwards.
    private func setDirection(backwards: Bool) throws {
        guard backwards != settings.backwards else { return }
        let now = currentTime
        settings.backwards = backwards
        wallPosition = now.seconds
        wallAnchor = Date()
        if let feeder { try feeder.seek(to: now.seconds * Double(feeder.format.sampleRate), backwards: backwards) }
    }

    func setPlaying(_ playing: Bool) throws {
        // Play at the end starts again from the beginning.
        if playing && !settings.backwards && currentTime >= composition.duration { try seek(to: .zero) }
        if !playing { wallPosition = currentTime.seconds }
        settings.playing = playing
        wallAnchor = Date()
        feeder?.setPlaying(playing)
    }

    private func applySettings() throws {
        wallPosition = currentTime.seconds
        wallAnchor = Date()
        try feeder?.apply(settings)
        // Scaled sections follow chipmunk mode too: render them again, pitch kept or not.
        if let feeder, audioIsVarispeed != (settings.algorithm == .varispeed),
           let track = composition.tracks(withMediaType: .audio).first,
           track.segments.contains(where: { $0.rate != nil && $0.rate != .one || $0.isReversed }) {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed,
                                             stream: audioChoice.stream)
            try feeder.seek(to: feeder.heardPosition, audio: audio)
        }
        audioIsVarispeed = settings.algorithm == .varispeed
    }

    func seek(to t: Time) throws {
        let clamped = min(max(t, .zero), composition.duration)
        wallPosition = clamped.seconds
        wallAnchor = Date()
        if let feeder { try feeder.seek(to: clamped.seconds * Double(feeder.format.sampleRate)) }
    }

    /// One video frame on from `t` (or back): a frame lasts longer in slowed sections.
    func frameStep(from t: Time, forward: Bool) throws -> Time {
        let frame = reader?.nominalFrameDuration ?? (1.0 / 30)
        let track = composition.tracks(withMediaType: .video).first ?? composition.tracks.first
        let rate = (try track?.presentation(at: t))??.rate?.doubleValue ?? 1
        let seconds = t.seconds + (forward ? 1 : -1) * frame / rate
        return PlaybackClock.time(seconds: seconds)
    }
}
