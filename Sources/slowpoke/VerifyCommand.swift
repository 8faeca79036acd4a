import ArgumentParser
import Composition
import Project
import Foundation

/// `slowpoke verify`: replays the document's history and compares it with the stored timeline.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a document: replay its history and compare the result with its timeline.",
        discussion: """
            Other commands read a document's stored timeline as it is when the document's \
            checksum matches its bytes (every document slowpoke 4 writes has one), so they cost \
            what they change, not the length of the history. `verify` replays every applied \
            edit on the whole movie, as documents without a checksum (versions 1 to 3, or \
            edited by hand) always are, and checks that the movie is unchanged. A document \
            whose timeline is not what its history gives is refused as corrupt, and exits 1.

            Examples:
              slowpoke verify
              slowpoke verify clip.slowpoke
            """)

    @OptionGroup var options: DocumentOptions

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let (document, checksum) = try DocumentStore.verify(url)
        let edits = Report.plural(document.history.applied, "applied edit")
        let segments = Report.segmentCount(document.timeline)
        let note = switch checksum {
        case .matches: "its checksum matches"
        case .missing: "it has no checksum (a document of version 1 to 3, or another tool's); the next edit writes one"
        case .differs: "its checksum does not match its bytes (edited by hand?); the next edit writes a new one"
        }
        print("\(url.lastPathComponent): the timeline (\(segments)) is what its \(edits) \(document.history.applied == 1 ? "gives" : "give"); the movie is unchanged; \(note)")
    }
}
