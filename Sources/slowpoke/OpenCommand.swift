import ArgumentParser
import Composition
import Project
import Foundation

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start a project for a movie: creates <movie-stem>.slowpoke beside it.",
        discussion: """
            Reads the movie's facts (streams, codecs, frame rates, exact length) and writes a \
            document whose timeline plays the whole movie at 1x. If the document already exists \
            and belongs to this movie, it is kept as it is; --force starts over.

            Examples:
              slowpoke open clip.mp4
              slowpoke open ~/Movies/dog.mov --force
              slowpoke open recording.ts --program 2

            A transport stream may carry several programs (broadcast services); a document \
            plays one, with all of its streams and none of another's: the first with video \
            unless --program says which. `info` lists them.
            """)

    @Argument(help: "The movie to edit (mp4, mov, mkv, webm, or an audio file).", completion: .file())
    var movie: String

    @Flag(help: "Replace an existing document, discarding its edits and history.")
    var force = false

    @Option(help: ArgumentHelp("For a transport stream with several programs (broadcast services): the program to edit and export, by its number as `info` lists them (default: the first with video).", valueName: "N"))
    var program: Int?

    func run() throws {
        try DocumentLocator.refuseStandardInput(movie)
        let url = URL(fileURLWithPath: movie)
        // A container without an index (a transport stream) is read to its end: on a terminal,
        // a bar says how far, with the time left.
        let reporter = isatty(STDERR_FILENO) == 1 ? ProgressReporter(style: .bar, label: "open", mediaSeconds: 0) : nil
        let (documentURL, created) = try DocumentLocator.documentForMovie(url, shown: movie, replace: force, program: program,
                                                                          progress: reporter.map { reporter in { try? reporter.update($0) } })
        let document = try DocumentStore.read(documentURL)
        let name = documentURL.lastPathComponent
        if created {
            print("created \(name) for \(document.movie.path): \(Report.summary(of: document.media))")
        } else {
            if program != nil && program != document.media.program {
                throw CLIError("\(name) already exists and plays \(document.media.program.map { "program \($0)" } ?? "the whole file"); add --force to start over with program \(program!)")
            }
            Terminal.note("\(name) already exists with \(document.history.applied) edit(s); keeping it (use --force to start over)")
            print("using \(name) for \(document.movie.path): \(Report.summary(of: document.media))")
        }
    }
}
