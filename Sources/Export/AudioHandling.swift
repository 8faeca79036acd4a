/// What an export did with the movie's audio.
public enum AudioHandling: String, Sendable {
    /// The movie has no audio.
    case none
    /// Copied packet for packet: the timeline leaves the audio untouched.
    case copied
    /// Rendered through TimePitch along the timeline and encoded.
    case rendered
}
