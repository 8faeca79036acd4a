public import Foundation

/// Where an export goes when nobody says: one rule for `slowpoke export` and for batch.
public enum OutputNaming {
    /// The containers slowpoke writes movies to, as users are told about them.
    public static let movieContainers = ["mp4", "mov", "mkv"]
    /// Every extension a movie export accepts: the containers and `m4v` (an mp4).
    public static let movieExtensions = ["mp4", "m4v", "mov", "mkv"]

    /// `<movie-stem>-slowpoke.<ext>`: in `container` if given, else the movie's own when slowpoke
    /// writes it, else mp4.
    public static func defaultMovieName(for movie: URL, container: String? = nil) -> String {
        let own = movie.pathExtension.lowercased()
        let ext = container?.lowercased() ?? (movieExtensions.contains(own) ? own : "mp4")
        return movie.deletingPathExtension().lastPathComponent + "-slowpoke." + ext
    }

    /// The audio files slowpoke writes when a document's movie has no video, in the order users
    /// are told about them.
    public static let audioExtensions = ["m4a", "wav", "flac", "mp3", "opus"]

    /// `<stem>-slowpoke.<ext>` for an audio-only document: the source's own extension when
    /// slowpoke writes it, else m4a.
    public static func defaultAudioName(for source: URL) -> String {
        let own = source.pathExtension.lowercased()
        return source.deletingPathExtension().lastPathComponent + "-slowpoke." + (audioExtensions.contains(own) ? own : "m4a")
    }
}
