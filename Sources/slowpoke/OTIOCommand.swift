import ArgumentParser
import Composition
import Project
import Export
import Foundation
import SafeFiles

struct OTIOCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otio",
        abstract: "Exchange timelines with OpenTimelineIO tools (DaVinci Resolve, Kdenlive, otiotool).",
        discussion: """
            `otio export` writes the timeline as OpenTimelineIO JSON: one track per media type, \
            one clip per segment (its source_range starts at the media's in-point and lasts as \
            long as the clip plays; a retimed clip has a LinearTimeWarp whose time_scalar is the \
            segment's rate, as OTIO's EDL and AAF adapters read it), gaps for inserted gaps, and \
            a reference to the movie. \
            `otio import` reads such a timeline back into a slowpoke document, including ones \
            written by other tools. Round trips are exact: exact times travel in the clips' \
            metadata as well.

            Examples:
              slowpoke otio export -o timeline.otio
              slowpoke otio import timeline.otio -o clip.slowpoke
            """,
        subcommands: [OTIOExport.self, OTIOImport.self])
}

struct OTIOExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the timeline as an OpenTimelineIO file (.otio).",
        discussion: """
            Times are written at one rate: the movie's frame rate when every time is a whole \
            number of frames, else the smallest rate that makes them whole (or the video \
            timescale, with exact values in metadata, when none fits).

            Examples:
              slowpoke otio export -o timeline.otio
              slowpoke otio export clip.slowpoke -o clip.otio --force
            """)

    @OptionGroup var options: DocumentOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("The .otio file to write (default: <movie-stem>.otio beside the document).", valueName: "out"),
            completion: .file(extensions: ["otio"]))
    var output: String?

    @Flag(help: "Replace the output if it exists.")
    var force = false

    func run() throws {
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        let movie = DocumentStore.movieURL(of: document, at: url)
        let out = output.map { URL(fileURLWithPath: $0) }
            ?? url.deletingLastPathComponent().appendingPathComponent(movie.deletingPathExtension().lastPathComponent + ".otio")
        let text = try OTIO.export(document.timeline, movie: Self.otioMovie(document, movieURL: movie))
        // Never the movie or the document it was made from, whatever the name.
        try OutputFile.write(Data(text.utf8), to: out, replacing: force, inputs: [movie, url],
                             display: output ?? out.lastPathComponent)
        let clips = document.timeline.tracks.map { $0.segments.count }.reduce(0, +)
        print("wrote \(output ?? out.lastPathComponent): \(document.timeline.tracks.count) track(s), \(clips) item(s), \(document.timeline.duration.readable)")
    }

    /// What an OTIO file says about the movie: its name, a file URL, its range, its rate.
    static func otioMovie(_ document: ProjectDocument, movieURL: URL) throws -> OTIOMovie {
        let available = try document.media.asset(name: document.movie.path).timeRange
        return OTIOMovie(name: movieURL.lastPathComponent, targetURL: movieURL.standardizedFileURL.absoluteString,
                         availableRange: available, preferredRate: preferredRate(document.media))
    }

    /// The whole frame rate (60), else the video timescale, else the audio sample rate, else 600.
    static func preferredRate(_ media: MediaInfo) -> Int64 {
        if let video = media.primaryVideo {
            if let fps = video.averageFrameRate ?? video.realFrameRate, fps.denominator == 1, fps.numerator > 0 { return fps.numerator }
            if video.timeBase.numerator == 1 { return video.timeBase.denominator }
        }
        if let rate = media.primaryAudio?.sampleRate, rate > 0 { return Int64(rate) }
        return 600
    }
}

struct OTIOImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an OpenTimelineIO file into a slowpoke document.",
        discussion: """
            The timeline must play one movie, in order, each part at most once, at rates from \
            1/32 to 32 (LinearTimeWarp), with gaps anywhere; every track must be cut alike, since \
            slowpoke edits audio and video together. Anything else (transitions, freeze frames, \
            other effects, nested stacks, a second movie) is refused with an error naming the item. \
            An EDL converted by OTIO's CMX 3600 adapter (M2 speed lines become time warps) \
            imports with --movie, since its clips have no linked media. \
            The document records the timeline as edits, so it can be undone step by step.

            Examples:
              slowpoke otio import timeline.otio -o clip.slowpoke
              slowpoke otio import from-resolve.otio --movie ~/Movies/dog.mov
              otioconvert -i cut.edl -o cut.otio -a rate=30
              slowpoke otio import cut.otio --movie dog.mov
            """)

    @Argument(help: ArgumentHelp("The .otio file to read.", valueName: "timeline.otio"), completion: .file(extensions: ["otio"]))
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
        let parsed: OTIOTimeline
        do { parsed = try OTIO.read(data) } catch { throw CLIError("\(timeline): \(error.description)") }
        if let movie, !FileManager.default.fileExists(atPath: movie) {
            throw CLIError("--movie \(movie): no such file; name the movie the timeline's clips play")
        }
        let movieURL: URL
        do {
            movieURL = try parsed.movie(given: movie.map { URL(fileURLWithPath: $0) }, relativeTo: otioURL.deletingLastPathComponent())
        } catch { throw CLIError("\(timeline): \(error.description)") }
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
