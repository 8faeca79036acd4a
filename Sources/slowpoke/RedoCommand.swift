import ArgumentParser
import Composition
import Project
import Foundation

struct Redo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Redo the last undone edit.",
        discussion: "Example:\n  slowpoke redo")

    @OptionGroup var options: DocumentOptions

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let (edit, duration) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(ProjectError) in
            let edit = try document.redo()
            return (edit, document.timeline.duration)
        }
        print("redid: \(edit.summary); the timeline is now \(duration.shown) s")
    }
}
