public import Export
public import Foundation
public import Project

extension ExportSource {
    /// What exporting `document`, read from `documentURL`, reads: its movie (which the store
    /// checked against the document's fingerprint when it read the document), named as the
    /// document records it, and its timeline. The output may be neither the document nor
    /// `others`.
    public init(document: ProjectDocument, at documentURL: URL, protecting others: [URL] = []) {
        self.init(movie: DocumentStore.movieURL(of: document, at: documentURL), name: document.movie.path,
                  media: document.media, timeline: document.timeline, protectedInputs: [documentURL] + others)
    }

    /// The same, playing program `program` of the document's transport stream (all of that
    /// program's streams, none of another's), its edits replayed there; nil when the movie has
    /// no such program.
    public init?(document: ProjectDocument, at documentURL: URL, program: Int) throws {
        guard let (media, timeline) = try document.playing(program: program) else { return nil }
        self.init(movie: DocumentStore.movieURL(of: document, at: documentURL), name: document.movie.path,
                  media: media, timeline: timeline, protectedInputs: [documentURL])
    }
}
