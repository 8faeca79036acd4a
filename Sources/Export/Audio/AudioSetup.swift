import Foundation
import Composition
import TimePitch
import Media

/// What every audio track of one export shares: the movie, the timeline it follows, how its
/// audio is retimed and encoded, and where it is written. ``AudioTracks`` and each
/// ``AudioTrackOutput`` take one.
struct AudioSetup {
    /// The movie, and how messages name it.
    let movie: URL
    let name: String
    /// The timeline, whose source time 0 is the movie's `origin` (its first video frame) and
    /// which ends at `end`.
    let segments: [CompositionTrackSegment]
    let origin: Time
    let end: Time
    let settings: TimePitchSettings
    /// The bit rate of audio encoded as AAC from another codec.
    let bitRate: Int
    /// The output's container, and how messages name the output.
    let container: Container
    let display: String
    /// Runs about every 50 ms while the muxer waits for rendered audio; may throw to stop the
    /// export (an interrupt).
    let waiting: () throws -> Void
    /// Hears what the audio loses or skips.
    let warning: (String) -> Void
}
