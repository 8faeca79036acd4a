/// What an export did with the movie's audio.
public enum AudioHandling: String, Sendable {
    /// The movie has no audio.
    case none
    /// Copied packet for packet: the timeline leaves the audio untouched.
    case copied
    /// Rendered through TimePitch along the timeline and encoded.
    case rendered
    /// The source's own packets where the timeline leaves the audio unchanged, the edited
    /// stretches rendered and encoded with the source's codec in between.
    case spliced
}
