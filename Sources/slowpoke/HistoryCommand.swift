import ArgumentParser
import Composition
import Project
import Foundation

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the edits, marking which are applied and which are undone.",
        discussion: "Example:\n  slowpoke history\n  slowpoke history --json")

    @OptionGroup var options: DocumentOptions

    @Flag(help: "Print the history as JSON.")
    var json = false

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        if json {
            try Terminal.printJSON(document.history)
            return
        }
        print(try Report.history(document.history), terminator: "")
    }
}
