import ArgumentParser
import Composition
import Export
import Foundation
import TimePitch

struct ExportMovie: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the retimed movie.",
        discussion: """
            Without --fps this is passthrough: every source frame is kept and only its timestamps \
            change, so nothing is re-encoded and nothing is lost. A 240 fps clip with a 0.25x \
            section keeps all its frames, spaced four times wider inside the section. Cuts \
            happen at keyframes; the export says where. Audio follows the same timeline through \
            the chosen time-pitch algorithm and is encoded as AAC (copied when nothing changed).

            The output goes to <movie-stem>-slowpoke.<ext> beside the document unless -o says \
            otherwise. It appears only when complete: an error or Ctrl-C leaves nothing behind.

            Examples:
              slowpoke export
              slowpoke export -o dog-slow.mov --algorithm timeDomain
              slowpoke export clip.slowpoke -o chipmunk.mp4 --algorithm varispeed --force
            """)

    @OptionGroup var options: DocumentOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("The movie to write: .mp4, .mov or .mkv.", valueName: "out"))
    var output: String?

    @OptionGroup var audio: AudioOutputOptions

    func run() throws {
        Interrupt.install()
        let settings = try audio.settings()
        let url = try DocumentLocator.locate(options.document)
        let exporter = try PassthroughExporter(documentURL: url, output: output.map { URL(fileURLWithPath: $0) },
                                               settings: settings, force: audio.force)
        let reporter = ProgressReporter(style: audio.progress, label: "export", mediaSeconds: exporter.document.timeline.duration.seconds)
        let result = try exporter.run(progress: { try reporter.update($0) }, warning: { Terminal.note("warning: \($0)") })
        let shown = output ?? exporter.output.lastPathComponent
        let timing = result.exact ? "exact timestamps at 1/\(result.timescale) s" : "timestamps rounded to 1/\(result.timescale) s"
        print("wrote \(shown): \(result.videoFrames) frames, \(result.duration) (\(timing)), audio \(result.audio.rawValue)")
    }
}
