public import Composition
public import Project
import Export
public import Foundation
import TimePitch
internal import CSDL2

/// How to start a preview.
public struct PreviewOptions: Sendable {
    /// The project document whose timeline plays, and where edits are saved.
    public var document: URL
    public var rate: Rational
    public var algorithm: TimePitchAlgorithm
    public var semitones: Int
    /// Composition time to start at.
    public var start: Time
    /// False for audio only, with no window (keys then come from ``Player/run(keys:status:message:)``).
    public var video: Bool
    /// Start playing at once rather than paused.
    public var autoplay: Bool

    public init(document: URL, rate: Rational = .one, algorithm: TimePitchAlgorithm = .timeDomain, semitones: Int = 0,
                start: Time = .zero, video: Bool = true, autoplay: Bool = false) {
        self.document = document
        self.rate = rate
        self.algorithm = algorithm
        self.semitones = semitones
        self.start = start
        self.video = video
        self.autoplay = autoplay
    }
}

/// What happened in a preview session, for the command to report.
public struct PreviewSummary: Sendable {
    /// Edits saved to the document, and undone, in order.
    public var saved: [String] = []
    /// The document's timeline length at the end.
    public var duration: Time = .zero
}

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
    public private(set) var settings: PlaybackSettings
    private var document: ProjectDocument
    private var composition: Composition
    private let movie: URL
    private let session: SDLSession
    private var feeder: AudioFeeder?
    private var video: VideoView?
    private var reader: VideoFrameReader?
    /// Wall clock, when there is no audio: composition seconds at `wallAnchor`.
    private var wallPosition: Double = 0
    private var wallAnchor = Date()
    /// Whether the composition audio's scaled sections were rendered with varispeed.
    private var audioIsVarispeed: Bool
    /// Whether the key list is on screen (h).
    private var showHelp = false
    private var summary = PreviewSummary()

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
        if let track = composition.tracks(withMediaType: .audio).first {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: algorithm == .varispeed)
            feeder = try AudioFeeder(audio: audio, settings: settings, at: start * Double(audio.format.sampleRate))
        }
        wallPosition = start
        if options.video {
            if hasVideo { reader = try VideoFrameReader(url: movie, threads: 2) }
            video = try VideoView(width: reader?.width ?? 640, height: reader?.height ?? 360,
                                  title: "slowpoke preview — \(movie.lastPathComponent)")
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
            seconds = wallPosition + (settings.playing ? Date().timeIntervalSince(wallAnchor) * settings.rate.doubleValue : 0)
        }
        return Time(value: Int64((max(0, seconds) * 48000).rounded()), timescale: 48000)
    }

    /// Plays until q, Esc, a closed window or SIGINT/SIGTERM. `keys` is polled for keys that do
    /// not come from the window (the terminal, in `--no-video` mode); `status` receives the
    /// status line whenever it changes (at most every 100 ms); `message` receives notes such as
    /// a saved edit or a refused key.
    public func run(keys: () -> PreviewKey? = { nil }, status: (String) -> Void = { _ in },
                    message: (String) -> Void = { _ in }) throws -> PreviewSummary {
        feeder?.start()
        defer { feeder?.stop() }
        if options.autoplay { try handle(.playPause, message: message) }
        var lastStatus = ""
        var lastStatusTime = Date.distantPast
        var lastShown: Time?
        while true {
            if let error = feeder?.error { throw error }
            var pressed: [PreviewKey] = []
            var quit = false
            var event = SDL_Event()
            while SDL_PollEvent(&event) != 0 {
                if event.type == SDL_QUIT.rawValue { quit = true }
                if event.type == SDL_KEYDOWN.rawValue, let key = Self.key(for: event.key.keysym.sym) { pressed.append(key) }
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
            var now = currentTime
            if settings.playing && now >= composition.duration {
                try setPlaying(false)
                try seek(to: composition.duration)
                now = composition.duration
                message("end of the timeline")
            }
            let shown = min(now, composition.duration)
            let line = settings.status(time: shown, duration: composition.duration)
            let statusDue = line != lastStatus && (Date().timeIntervalSince(lastStatusTime) >= 0.1 || !pressed.isEmpty)
            if statusDue {
                status(line)
                lastStatus = line
                lastStatusTime = Date()
            }
            if let video {
                let frameChanged = try showVideo(at: shown)
                if frameChanged || statusDue || lastShown == nil || !pressed.isEmpty {
                    if statusDue { video.setTitle("slowpoke — \(line)") }
                    video.present(status: lastStatus, help: showHelp ? previewKeyHelp : nil)
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
              let presentation = try track.presentation(at: min(t, try track.duration - Time(value: 1, timescale: 48000))),
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
        guard try reader.show(at: source) else { return false }
        try reader.withPlanes { planes, linesizes in video.update(planes: planes, linesizes: linesizes) }
        return true
    }

    // MARK: Keys

    static func key(for sym: SDL_Keycode) -> PreviewKey? {
        switch sym {
        case Int32(SDLK_SPACE.rawValue): return .playPause
        case Int32(SDLK_LEFT.rawValue): return .slower
        case Int32(SDLK_RIGHT.rawValue): return .faster
        case Int32(SDLK_UP.rawValue): return .pitchUp
        case Int32(SDLK_DOWN.rawValue): return .pitchDown
        case Int32(SDLK_c.rawValue): return .chipmunk
        case Int32(SDLK_a.rawValue): return .toggleStretch
        case Int32(SDLK_COMMA.rawValue): return .stepBack
        case Int32(SDLK_PERIOD.rawValue): return .stepForward
        case Int32(SDLK_j.rawValue): return .seekBack
        case Int32(SDLK_l.rawValue): return .seekForward
        case Int32(SDLK_LEFTBRACKET.rawValue): return .markStart
        case Int32(SDLK_RIGHTBRACKET.rawValue): return .markEnd
        case Int32(SDLK_RETURN.rawValue), Int32(SDLK_KP_ENTER.rawValue): return .apply
        case Int32(SDLK_u.rawValue): return .undo
        case Int32(SDLK_h.rawValue): return .help
        case Int32(SDLK_q.rawValue), Int32(SDLK_ESCAPE.rawValue): return .quit
        default: return nil
        }
    }

    private func handle(_ key: PreviewKey, message: (String) -> Void) throws {
        switch key {
        case .playPause: try setPlaying(!settings.playing)
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
            try seek(to: Time(value: Int64((max(0, t) * 48000).rounded()), timescale: 48000))
        case .markStart: settings.markIn = currentTime
        case .markEnd: settings.markOut = currentTime
        case .apply: try applyEdit(message: message)
        case .undo: try undo(message: message)
        case .help: showHelp.toggle()
        case .quit: break
        }
    }

    private func setPlaying(_ playing: Bool) throws {
        // Play at the end starts again from the beginning.
        if playing && currentTime >= composition.duration { try seek(to: .zero) }
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
           track.segments.contains(where: { $0.rate != nil && $0.rate != .one }) {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed)
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
        return Time(value: Int64((max(0, seconds) * 48000).rounded()), timescale: 48000)
    }

    // MARK: Editing

    private func applyEdit(message: (String) -> Void) throws {
        guard let range = settings.markedRange else {
            message("mark the range's start with [ and its end with ] first")
            return
        }
        guard settings.rate != .one else {
            message("the rate is 1x, so the range would not change; pick a rate with ← and → first")
            return
        }
        let edit = try Edit.scale(range: range, rate: settings.rate)
        try save(message: message) { (document: inout ProjectDocument) throws(CompositionError) in
            try document.apply(edit)
            return edit.summary
        }
        settings.markIn = nil
        settings.markOut = nil
    }

    private func undo(message: (String) -> Void) throws {
        try save(message: message) { (document: inout ProjectDocument) throws(CompositionError) in
            "undid: " + (try document.undo()).summary
        }
    }

    /// Changes the document on disk (locked, atomically replaced), then plays the new timeline
    /// from the same moment of the movie.
    private func save(message: (String) -> Void,
                      _ change: (inout ProjectDocument) throws(CompositionError) -> String) throws {
        let expected = composition
        let (note, updated) = try DocumentStore.modify(options.document) { (document: inout ProjectDocument) throws(CompositionError) in
            guard document.timeline == expected else {
                throw CompositionError.invalidRange("the document changed on disk while previewing; quit and start the preview again")
            }
            let note = try change(&document)
            return (note, document)
        }
        let before = currentTime
        let anchorTrack = composition.tracks(withMediaType: .video).first ?? composition.tracks.first
        let sourceTime = (try anchorTrack?.presentation(at: before))??.sourceTime
        document = updated
        composition = updated.timeline
        var after = min(before, composition.duration)
        if let sourceTime, let track = composition.tracks.first(where: { $0.trackID == anchorTrack?.trackID }) {
            let times = try track.compositionTimes(forSourceTime: sourceTime)
            if let nearest = times.min(by: { abs($0.seconds - before.seconds) < abs($1.seconds - before.seconds) }) { after = nearest }
        }
        if let feeder, let track = composition.tracks(withMediaType: .audio).first {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed)
            try feeder.seek(to: after.seconds * Double(feeder.format.sampleRate), audio: audio)
            audioIsVarispeed = settings.algorithm == .varispeed
        }
        wallPosition = after.seconds
        wallAnchor = Date()
        summary.saved.append(note)
        message("saved: \(note); the timeline is now \(composition.duration)")
    }
}
