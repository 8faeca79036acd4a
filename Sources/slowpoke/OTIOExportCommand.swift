import ArgumentParser
import Composition
import Project
import Interchange
import Export
import Foundation
import SafeFiles

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
        let otioMovie = try Self.otioMovie(document, movieURL: movie)
        // Never the movie or the document it was made from, whatever the name; written a
        // piece at a time, and in place only when whole.
        let file = try OutputFile(out, replacing: force, inputs: [movie, url], display: output ?? out.lastPathComponent)
        do {
            // The edits beside the timeline, so that `otio import` gives it back exactly.
            let edits = try document.history.appliedEdits
            try OTIO.export(document.timeline, movie: otioMovie, edits: edits) { (bytes: [UInt8]) throws(SafeFileError) in try file.write(Data(bytes)) }
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        let clips = document.timeline.tracks.map { $0.segments.count }.reduce(0, +)
        print("wrote \(output ?? out.lastPathComponent): \(document.timeline.tracks.count) track(s), \(clips) item(s), \(document.timeline.duration.readable)")
    }

    /// What an OTIO file says about the movie: its name, a file URL, its range, its rate.
    static func otioMovie(_ document: ProjectDocument, movieURL: URL) throws -> OTIOMovie {
        let available = try document.media.asset(name: document.movie.path).timeRange
        // A frame of the video, where a reversed clip's start_time stands back from its end.
        let fps = document.media.primaryVideo.flatMap { $0.averageFrameRate ?? $0.realFrameRate }
        let frame = fps.flatMap { $0 > .zero ? try? Time(seconds: $0.reciprocal) : nil }
        return OTIOMovie(name: movieURL.lastPathComponent, targetURL: movieURL.standardizedFileURL.absoluteString,
                         availableRange: available, preferredRate: preferredRate(document.media), frameDuration: frame)
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
