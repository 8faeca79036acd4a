public import Composition
public import Project
import Export
public import Foundation
import TimePitch
internal import CSDL2

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
    private var video: VideoView?
    var reader: VideoFrameReader?
    /// Pictures for video that runs backwards (a reversed range, or `J`).
    var backwardFrames: BackwardPictureCache?
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
    /// Whether the key list is on screen (h).
    private var showHelp = false
    var summary = PreviewSummary()

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
            if hasVideo { reader = try VideoFrameReader(url: movie, threads: 2) }
            backwardFrames = reader.map { BackwardPictureCache(reader: $0) }
            // HDR pictures are tone-mapped at (at most) the window's size, not at 4K.
            reader?.limitToneMappedPictures(toFit: 960, 720)
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
    /// line whenever it changes (at most every 100 ms); `message` receives notes such as a saved
    /// edit or a refused key. `interrupted` is asked once per turn of the loop, between keys, so
    /// an interruption never lands inside a save: the summary then says `interrupted`.
    public func run(keys: () -> PreviewKey? = { nil }, status: (String) -> Void = { _ in },
                    message: (String) -> Void = { _ in },
                    interrupted: () -> Bool = { false }) throws -> PreviewSummary {
        feeder?.start()
        defer { feeder?.stop() }
        if options.autoplay { try handle(.playPause, message: message) }
        var lastStatus = ""
        var lastStatusTime = Date.distantPast
        var lastShown: Time?
        var lastSubtitle: String?
        while true {
            if interrupted() {
                summary.interrupted = true
                break
            }
            if let error = feeder?.error { throw error }
            var pressed: [PreviewKey] = []
            var quit = false
            var event = SDL_Event()
            while SDL_PollEvent(&event) != 0 {
                if event.type == SDL_QUIT.rawValue { quit = true }
                if event.type == SDL_KEYDOWN.rawValue,
                   let key = Self.key(for: event.key.keysym.sym, shift: Int32(event.key.keysym.mod) & Int32(KMOD_SHIFT.rawValue) != 0) {
                    pressed.append(key)
                }
                if event.type == SDL_WINDOWEVENT.rawValue { lastShown = nil }
            }
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
            let shown = min(now, composition.duration)
            let line = ([settings.status(time: shown, duration: composition.duration)] + overlayNotes).joined(separator: "  ")
            let statusDue = line != lastStatus && (Date().timeIntervalSince(lastStatusTime) >= 0.1 || !pressed.isEmpty)
            if statusDue {
                status(line)
                lastStatus = line
                lastStatusTime = Date()
            }
            if let video {
                let frameChanged = try showVideo(at: shown)
                let subtitle = showSubtitles ? subtitles?.text(at: shown) : nil
                if frameChanged || statusDue || lastShown == nil || !pressed.isEmpty || subtitle != lastSubtitle {
                    if statusDue { video.setTitle("slowpoke — \(line)") }
                    video.present(status: lastStatus, subtitle: subtitle, help: showHelp ? previewKeyHelp : nil)
                    lastSubtitle = subtitle
                    lastShown = shown
                }
            }
            SDL_Delay(4)
        }
        summary.duration = composition.duration
        return summary
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
            return true
        }
        backwardFrames?.clear()
        guard try reader.show(at: source) else { return false }
        try reader.withPlanes { planes, linesizes in video.update(planes: planes, linesizes: linesizes) }
        return true
    }

    // MARK: Keys

    private func handle(_ key: PreviewKey, message: (String) -> Void) throws {
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

    private func setPlaying(_ playing: Bool) throws {
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

    private func seek(to t: Time) throws {
        let clamped = min(max(t, .zero), composition.duration)
        wallPosition = clamped.seconds
        wallAnchor = Date()
        if let feeder { try feeder.seek(to: clamped.seconds * Double(feeder.format.sampleRate)) }
    }

    /// One video frame on from `t` (or back): a frame lasts longer in slowed sections.
    private func frameStep(from t: Time, forward: Bool) throws -> Time {
        let frame = reader?.nominalFrameDuration ?? (1.0 / 30)
        let track = composition.tracks(withMediaType: .video).first ?? composition.tracks.first
        let rate = (try track?.presentation(at: t))??.rate?.doubleValue ?? 1
        let seconds = t.seconds + (forward ? 1 : -1) * frame / rate
        return PlaybackClock.time(seconds: seconds)
    }
}
