import Composition
import Export
import Foundation
import TimePitch

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
        return notes
    }

    /// `t`: plays the next audio track from the time being heard.
    func nextAudioTrack(message: (String) -> Void) throws {
        guard audioChoice.tracks.count > 1, let feeder, let track = composition.tracks(withMediaType: .audio).first else {
            return message("this movie has no other audio track")
        }
        audioChoice.next()
        let audio = try CompositionAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed,
                                         stream: audioChoice.stream)
        let position = feeder.heardPosition / Double(feeder.format.sampleRate)
        if audio.format == feeder.format {
            try feeder.seek(to: feeder.heardPosition, audio: audio)
        } else {
            // Another sample rate or channel count: the device is opened again for it.
            feeder.stop()
            self.feeder = nil
            let replacement = try AudioFeeder(audio: audio, settings: settings, at: position * Double(audio.format.sampleRate))
            self.feeder = replacement
            replacement.start()
            replacement.setPlaying(settings.playing)
        }
        audioIsVarispeed = settings.algorithm == .varispeed
        message("playing \(audioChoice.label ?? "audio track \(audioChoice.current + 1)")")
    }

    /// Reads the text subtitle track to show: the one marked default, else the first. It shows
    /// from the start when marked default; `s` shows or hides it.
    func loadSubtitles(from streams: [PlayableStream]) {
        guard let chosen = streams.first(where: { $0.isText && $0.isDefault }) ?? streams.first(where: \.isText) else { return }
        do {
            try retimeSubtitles(chosen)
            showSubtitles = chosen.isDefault
        } catch {
            startNotes.append("subtitles left out: \(error.localizedDescription)")
        }
    }

    /// Reads `stream`'s cues through the current timeline (again, after an edit).
    func retimeSubtitles(_ stream: PlayableStream) throws {
        guard let track = composition.tracks(withMediaType: .video).first ?? composition.tracks.first else { return }
        // Source time 0 is the primary stream's first presentation time, as in an export.
        let primary = document.media.primaryVideo ?? document.media.primaryAudio
        let origin = primary?.startTime.flatMap { $0.isNumeric && $0 > .zero ? $0 : nil } ?? .zero
        subtitles = SubtitleTimeline(stream: stream, cues: try SubtitleCue.read(movie: movie, stream: stream.index,
                                                                               segments: track.segments, origin: origin))
    }
}
