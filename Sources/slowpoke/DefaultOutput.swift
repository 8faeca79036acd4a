import Composition
import Export
import Media
import Foundation
import Project

/// Where `export` writes when `-o` is not given: beside the document, named by
/// ``OutputNaming`` (the rule batch follows too).
enum DefaultOutput {
    /// `<movie-stem>-slowpoke.<ext>` for passthrough; with `fps`, `<movie-stem>-<N>fps.<ext>`
    /// (`encodingWebM`: the re-encoded video is one WebM holds, so a WebM movie stays WebM).
    static func movie(for document: ProjectDocument, at url: URL, fps: Rational? = nil, encodingWebM: Bool = false) -> URL {
        let movie = DocumentStore.movieURL(of: document, at: url)
        let name = OutputNaming.defaultMovieName(for: movie, encodingVideo: fps != nil, fps: fps, encodingWebM: encodingWebM)
        return url.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// `<stem>-slowpoke.<ext>` for a document without video: the source's extension when
    /// slowpoke writes it, else m4a.
    static func audio(for document: ProjectDocument, at url: URL) -> URL {
        let source = DocumentStore.movieURL(of: document, at: url)
        return url.deletingLastPathComponent().appendingPathComponent(OutputNaming.defaultAudioName(for: source))
    }
}
