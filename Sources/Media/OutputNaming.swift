public import Foundation
public import Composition

/// Where an export goes when nobody says: one rule for `slowpoke export` and for batch.
/// The extensions it chooses among are ``Container``'s.
public enum OutputNaming {
    /// `<movie-stem>-slowpoke.<ext>`: in `container` if given, else the movie's own when slowpoke
    /// writes it, else mp4. WebM holds only VP8, VP9 and AV1 video: a WebM movie whose video
    /// is re-encoded (`encodingVideo`, as H.264 or HEVC) goes to mkv, which keeps its audio.
    /// With `fps` (`export --fps 30`), `<movie-stem>-30fps.<ext>`, so that a passthrough export
    /// and a constant-rate one of the same document do not want the same name. `encodingWebM`
    /// says the re-encoded video is one WebM holds (VP9), so a WebM movie stays WebM.
    public static func defaultMovieName(for movie: URL, container: String? = nil, encodingVideo: Bool = false,
                                        fps: Rational? = nil, encodingWebM: Bool = false) -> String {
        let own = movie.pathExtension.lowercased()
        var ext = container?.lowercased() ?? (Container.acceptedMovieExtensions.contains(own) ? own : "mp4")
        if container == nil && (encodingVideo || fps != nil) && !encodingWebM && ext == "webm" { ext = "mkv" }
        let suffix = fps.map { "-\(rateName($0))fps" } ?? "-slowpoke"
        return movie.deletingPathExtension().lastPathComponent + suffix + "." + ext
    }

    /// A frame rate as a file name writes it: `30`, `29.97` (for 30000/1001), `23.976`.
    static func rateName(_ rate: Rational) -> String {
        if let exact = rate.exactDecimal(maxDigits: 3) { return exact }
        var text = String(format: "%.3f", rate.doubleValue)
        while text.hasSuffix("0") { text.removeLast() }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// `<stem>-slowpoke.<ext>` for an audio-only document: the source's own extension when
    /// slowpoke writes it, else m4a.
    public static func defaultAudioName(for source: URL) -> String {
        let own = source.pathExtension.lowercased()
        return source.deletingPathExtension().lastPathComponent + "-slowpoke." + (Container.audioExtensions.contains(own) ? own : "m4a")
    }
}
