import Composition
import Foundation
import TimePitch
import Media

/// The preview's tracks beyond the primary ones: which audio track plays (`t`), the subtitles
/// shown at the bottom (`s`), and what the overlay says about them and about HDR.
extension Player {
    /// Notes the status line carries after the clock: the audio track, when there are several,
    /// and an HDR source.
    var overlayNotes: [String] {
        var notes: [String] = []
        if let label = audioChoice.label { notes.append(label) }
        if let reader, let transfer = reader.hdrTransfer {
            notes.append(reader.isToneMapping ? "HDR \(transfer) → SDR" : "HDR \(transfer), not tone-mapped")
        }
        if let note = steadied?.note { notes.append(note) }
        return notes
    }

    /// `t`: starts making the next audio track (after the one being made, if `t` came twice);
    /// ``adoptPreparedAudio(message:)`` plays it from the time being heard once it is ready.
    func nextAudioTrack(message: (String) -> Void) throws {
        guard audioChoice.tracks.count > 1, feeder != nil, let track = composition.tracks(withMediaType: .audio).first else {
            return message("this movie has no other audio track")
        }
        var choice = preparingAudio?.choice ?? audioChoice
        choice.next()
        preparingAudio = PreparedAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed, choice: choice)
    }

    /// Plays the audio track made since `t`, if it is ready (and still fits the timeline and
    /// the rendering; if not, makes it again).
    func adoptPreparedAudio(message: (String) -> Void) throws {
        guard let prepared = preparingAudio, let made = prepared.work.finished else { return }
        preparingAudio = nil
        guard let feeder, let track = composition.tracks(withMediaType: .audio).first else { return }
        let varispeed = settings.algorithm == .varispeed
        guard prepared.track == track, prepared.varispeed == varispeed else {
            preparingAudio = PreparedAudio(movie: movie, track: track, varispeed: varispeed, choice: prepared.choice)
            return
        }
        let audio = try made.get()
        audioChoice = prepared.choice
        if audio.format == feeder.format {
            try feeder.seek(to: feeder.heardPosition, audio: audio)
        } else {
            // Another sample rate or channel count: the device is opened again for it.
            let position = feeder.heardPosition / Double(feeder.format.sampleRate)
            feeder.stop()
            self.feeder = nil
            let replacement = try AudioFeeder(audio: audio, settings: settings, at: position * Double(audio.format.sampleRate))
            self.feeder = replacement
            replacement.start()
            replacement.setPlaying(settings.playing)
        }
        audioIsVarispeed = varispeed
        summary.clock.add(.audio, "track\(audioChoice.current + 1)", feeder: self.feeder, clock: currentTime.seconds)
        message("playing \(audioChoice.label ?? "audio track \(audioChoice.current + 1)")")
    }

    /// Chooses the text subtitle track to show: the one marked default, else the first. It
    /// shows from the start when marked default; `s` shows or hides it.
    func loadSubtitles(from streams: [PlayableStream]) {
        guard let chosen = streams.first(where: { $0.isText && $0.isDefault }) ?? streams.first(where: \.isText) else { return }
        subtitleStream = chosen
        showSubtitles = chosen.isDefault
        readSubtitles(chosen)
    }

    /// Starts reading `stream`'s cues through the current timeline (again, after an edit).
    func readSubtitles(_ stream: PlayableStream) {
        guard let track = composition.tracks(withMediaType: .video).first ?? composition.tracks.first else { return }
        // Source time 0 is the primary stream's first presentation time, as in an export.
        let primary = document.media.primaryVideo ?? document.media.primaryAudio
        let origin = primary?.startTime.flatMap { $0.isNumeric && $0 > .zero ? $0 : nil } ?? .zero
        let movie = self.movie, segments = track.segments
        readingSubtitles = (BackgroundWork(name: "slowpoke subtitles") {
            try SubtitleCue.read(movie: movie, stream: stream.index, segments: segments, origin: origin)
        }, segments)
    }

    /// Shows the cues read since ``readSubtitles(_:)``, once read, if they still fit the timeline.
    func adoptSubtitles(message: (String) -> Void) {
        guard let reading = readingSubtitles, let result = reading.work.finished, let stream = subtitleStream else { return }
        readingSubtitles = nil
        let current = (composition.tracks(withMediaType: .video).first ?? composition.tracks.first)?.segments
        guard current == reading.segments else { return readSubtitles(stream) }
        do {
            subtitles = SubtitleTimeline(stream: stream, cues: try result.get())
        } catch {
            subtitleStream = nil
            message("subtitles left out: \(error.localizedDescription)")
        }
    }
}
