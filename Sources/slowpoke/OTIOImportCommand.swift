import ArgumentParser
import Composition
import Project
import Interchange
import Export
import Foundation
import SafeFiles
import Media

struct OTIOImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an OpenTimelineIO file (or a CMX 3600 EDL) into a slowpoke document.",
        discussion: """
            The timeline must play one movie, in order, each part at most once, at rates from \
            1/32 to 32 (LinearTimeWarp; a negative scalar plays the clip backwards from its \
            start_time, the first frame shown), with gaps and freeze frames anywhere; every track \
            must be cut alike, since slowpoke edits audio and video together. Anything else \
            (transitions, other effects, nested stacks, a second movie) is refused with an error \
            naming the item. \
            A CMX 3600 EDL (.edl) is read directly, with --movie, since its events name no \
            file: cuts, gaps, M2 speed lines (a negative speed plays backwards from the source \
            in, as editors write a reverse) and M2 at speed 0 (a freeze). An EDL converted by \
            OTIO's CMX 3600 adapter imports too, but that adapter plays a reverse at normal \
            speed forwards. \
            The document records the timeline as edits, so it can be undone step by step.

            Examples:
              slowpoke otio import timeline.otio -o clip.slowpoke
              slowpoke otio import from-resolve.otio --movie ~/Movies/dog.mov
              slowpoke otio import cut.edl --movie dog.mov
            """)

    @Argument(help: ArgumentHelp("The .otio (or CMX 3600 .edl) file to read.", valueName: "timeline.otio"), completion: .file(extensions: ["otio", "edl"]))
    var timeline: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The document to write (default: <movie-stem>.slowpoke beside the movie).", valueName: "doc"),
            completion: .file(extensions: ["slowpoke"]))
    var output: String?

    /// Clips with no linked media (EDLs and AAFs converted by OpenTimelineIO's adapters) or a
    /// reference to a file of this name play it; a clip naming another file is an error.
    @Option(help: ArgumentHelp("The movie the clips play: needed for clips with no linked media (EDL, AAF); clips that name a file must name one of the same name.", valueName: "movie"), completion: .file())
    var movie: String?

    @Flag(help: "Replace the document if it exists.")
    var force = false

    func run() throws {
        let otioURL = URL(fileURLWithPath: timeline)
        let data: Data
        guard FileManager.default.fileExists(atPath: otioURL.path) else {
            throw ExportError.cannotOpen(path: timeline, reason: "no such file or not readable")
        }
        data = try InputFile.read(otioURL)
        if let movie, !FileManager.default.fileExists(atPath: movie) {
            throw CLIError("--movie \(movie): no such file; name the movie the timeline's clips play")
        }
        let parsed: OTIOTimeline
        if otioURL.pathExtension.lowercased() == "edl" {
            // An EDL counts frames of the movie it cuts, so the movie comes first.
            guard let movie else { throw CLIError("\(timeline) is an EDL, whose events name no file; name the movie it cuts with --movie") }
            let video = try Prober.probe(URL(fileURLWithPath: movie)).primaryVideo
            guard let rate = video.flatMap({ $0.averageFrameRate ?? $0.realFrameRate }), rate > .zero else {
                throw CLIError("\(timeline) is an EDL, which counts video frames, and \(movie) has no video frame rate")
            }
            do { parsed = try EDL.read(String(decoding: data, as: UTF8.self), frameRate: rate) } catch { throw CLIError("\(timeline): \(error.description)") }
        } else {
            do { parsed = try OTIO.read(data) } catch { throw CLIError("\(timeline): \(error.description)") }
        }
        let movieURL: URL
        do {
            movieURL = try parsed.movie(given: movie.map { URL(fileURLWithPath: $0) }, relativeTo: otioURL.deletingLastPathComponent())
        } catch { throw CLIError("\(timeline): \(FlagAdvice.message(for: error) ?? error.description)") }
        guard FileManager.default.fileExists(atPath: movieURL.path) else {
            throw CLIError("the movie \(movieURL.path) that \(timeline) refers to does not exist; name it with --movie")
        }
        let documentURL = output.map { URL(fileURLWithPath: $0) } ?? DocumentStore.documentURL(forMovie: movieURL)
        guard documentURL.pathExtension == DocumentStore.fileExtension else {
            throw CLIError("\(output ?? documentURL.path) must end in .\(DocumentStore.fileExtension)")
        }
        if FileManager.default.fileExists(atPath: documentURL.path) && !force {
            throw CLIError("\(output ?? documentURL.lastPathComponent) already exists; use --force to replace it")
        }
        let media = try Prober.probe(movieURL)
        var document = try ProjectDocument(movieURL: movieURL, documentURL: documentURL, media: media)
        do {
            let replayed = try OTIO.replay(parsed, on: document.originalTimeline())
            for edit in replayed.edits { try document.apply(edit) }
        } catch let error as OTIOError {
            throw CLIError("\(timeline): \(error.description)")
        }
        try DocumentStore.create(document, at: documentURL, replacing: force)
        let shown = output ?? documentURL.lastPathComponent
        print("imported \(timeline) into \(shown): \(document.history.applied) edit(s), the timeline is now \(document.timeline.duration.shown) s")
    }
}
