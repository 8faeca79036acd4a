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
}
