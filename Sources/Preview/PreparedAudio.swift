import Composition
import Foundation

/// An audio track's ``CompositionAudio`` made on a thread of its own, so that `t` never stalls
/// the player: making one renders every scaled section of the timeline, which takes a while
/// for long ones. The player keeps playing the old track and takes this one when it is ready.
///
/// `@unchecked Sendable`: `result` is written once by the preparing thread and read only while
/// `lock` is held; the ``CompositionAudio`` inside is handed over whole, and only the player
/// (then its feeder) uses it after that.
final class PreparedAudio: @unchecked Sendable {
    /// The choice it plays, the track and the rendering it was made for.
    let choice: AudioTrackChoice
    let track: CompositionTrack
    let varispeed: Bool
    private let lock = NSLock()
    private var result: Result<CompositionAudio, Error>?

    init(movie: URL, track: CompositionTrack, varispeed: Bool, choice: AudioTrackChoice) {
        self.choice = choice
        self.track = track
        self.varispeed = varispeed
        let stream = choice.stream
        let thread = Thread { [self] in
            let made = Result { try CompositionAudio(movie: movie, track: track, varispeed: varispeed, stream: stream) }
            lock.withLock { result = made }
        }
        thread.name = "slowpoke audio track"
        thread.start()
    }

    /// The audio once made (or why it could not be), nil while still at work.
    var finished: Result<CompositionAudio, Error>? { lock.withLock { result } }
}
