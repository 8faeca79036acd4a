import Foundation
import Composition
import TimePitch
internal import CFFmpeg
import Media

/// Every audio track of an exported movie, each an ``AudioTrackOutput`` of its own: all of them
/// follow the timeline with the same algorithm, keep their language, title, disposition and
/// channel layout, and are interleaved with the video in the order of their streams. Each
/// rendered track holds only its own bounded buffers.
final class AudioTracks {
    let tracks: [AudioTrackOutput]

    /// What the export did with the document's audio (the first track), or `.none`.
    var handling: AudioHandling { tracks.first?.handling ?? .none }

    /// Prepares every audio stream of `streams` (the movie's `input`, opened for this look) for
    /// the timeline of `setup`; the first, the document's own audio, must export, and any other
    /// that cannot is named and left out. A track is copied when the timeline leaves it
    /// `untouched` and the container can hold its codec; otherwise it is rendered (see
    /// ``AudioCodecChoice``; the export's preflight has said which codecs change).
    init(_ setup: AudioSetup, input: InputFormatContext, streams: [Int], untouched: Bool) throws {
        let settings = setup.settings
        var made: [AudioTrackOutput] = []
        for index in streams {
            let parameters = input.stream(index).parameters.pointee
            let holds = setup.container.holds(parameters.codec_id)
            // Audio that changes format mid-file is rendered whole in one format: copied packets
            // would splice formats one output stream cannot state. So is the audio of a file
            // whose clock starts again (``ClockRestarts``): the recordings' packets overlap at
            // the join (each one's AAC starts with priming stamped before its video), and copied
            // packets would go back in time; the reader drops what repeats.
            let changing = (try? AudioFormatScan.changes(path: setup.movie.path, stream: index)) != nil || input.clock != nil
            let copy = untouched && settings.semitones == 0 && holds && !changing
            let choice = AudioCodecChoice(source: parameters, container: setup.container, aacBitRate: setup.bitRate)
            let splice = !copy && !changing && choice.splicesMovieAudio(parameters, container: setup.container, semitones: settings.semitones)
            do {
                made.append(try AudioTrackOutput(setup, stream: index, mode: copy ? .copy : splice ? .splice : .render, choice: choice))
            } catch where index != streams.first {
                // The document's own audio must export; a further track that cannot is named.
                setup.warning("\(setup.name) audio stream \(index) is not in the export: \(error.localizedDescription)")
            }
        }
        tracks = made
    }

    /// Adds every track's output stream.
    func attach(to writer: MovieWriter) throws {
        for track in tracks { try track.attach(to: writer) }
    }

    /// Writes every audio packet due before `dts` (in `base`).
    func pump(upTo dts: Int64, in base: AVRational, writer: MovieWriter) throws {
        for track in tracks { try track.pump(upTo: dts, in: base, writer: writer) }
    }

    /// Writes whatever audio is left.
    func finish(writer: MovieWriter) throws {
        for track in tracks { try track.finish(writer: writer) }
    }
}
