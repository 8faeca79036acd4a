import ArgumentParser
import Composition
import Project
import Foundation

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Undo the last edit.",
        discussion: "Example:\n  slowpoke undo")

    @OptionGroup var options: DocumentOptions

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let (edit, duration) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(ProjectError) in
            let edit = try document.undo()
            return (edit, document.timeline.duration)
        }
        print("undid: \(edit.summary); the timeline is now \(duration.shown) s")
    }
}
