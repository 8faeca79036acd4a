import Composition
import Foundation

/// An audio track's ``CompositionAudio`` made in the background, so that `t` never stalls the
/// player: making one renders every scaled section of the timeline, which takes a while for
/// long ones. The player keeps playing the old track and takes this one when it is ready.
struct PreparedAudio {
    /// The choice it plays, and the track and rendering it was made for.
    let choice: AudioTrackChoice
    let track: CompositionTrack
    let varispeed: Bool
    let work: BackgroundWork<CompositionAudio>

    init(movie: URL, track: CompositionTrack, varispeed: Bool, choice: AudioTrackChoice) {
        self.choice = choice
        self.track = track
        self.varispeed = varispeed
        let stream = choice.stream
        work = BackgroundWork(name: "slowpoke audio track") {
            try CompositionAudio(movie: movie, track: track, varispeed: varispeed, stream: stream)
        }
    }
}
