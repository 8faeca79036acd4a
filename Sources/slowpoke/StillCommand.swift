import ArgumentParser
import Composition
import Export
import Foundation
import Project
import Media

struct StillCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "still",
        abstract: "Write the picture the timeline shows at a time as a PNG, JPEG or TIFF.",
        discussion: """
            The still is the exact source frame the timeline shows at --at (timeline time), \
            after every edit: in a slowed or sped-up range the frame on screen at the source \
            time mapped back, in a reversed range the frame playing there, in a freeze the held \
            frame; the same frame `export --fps` shows at that instant. It is written at the \
            source's full resolution, upright (the stream's rotation applied) and at its display \
            shape (non-square pixels scaled to square ones across, with Lanczos), 16 bits a \
            sample in PNG and TIFF when the source has more than 8 (JPEG holds 8). PNG keeps \
            the colour primaries and transfer (a cICP chunk, and sRGB for BT.709); JPEG and \
            TIFF get an ICC profile where one describes the source (sRGB for BT.709, Display \
            P3) and EXIF ColorSpace (sRGB, else uncalibrated: BT.2020 with PQ or HLG has no \
            standard ICC form). Every format gets the movie's capture date, location, make and \
            model as EXIF and XMP where the movie has them.

            --best N compares the frame shown with the N frames either side (within the same \
            range of the timeline) and takes the sharpest, measured as the variance of the \
            Laplacian of its luma (the 4-neighbour kernel; a blurred or shaken frame has weak \
            edges and a low variance). --merge K aligns the K frames nearest the one taken by \
            dense optical flow (OpenCV's DIS) and averages them where they agree with it, \
            which lowers the noise about as √K does where the scene is still or moves smoothly \
            and leaves the frame's own pixels where a neighbour's motion cannot be followed.

            Give --at several times for several stills in one run. With one -o and several \
            --at, each still is named after it with its time (frame.png: frame-3.2s.png, \
            frame-10s.png); or give -o once per --at, in order. Without -o, stills go beside \
            the document as <movie-stem>-<time>s.png.

            Examples:
              slowpoke still --at 3.2 -o frame.png
              slowpoke still --at 6 --best 5 -o sharp.jpg    # the sharpest of 11 frames
              slowpoke still --at 6 --merge 5 -o clean.tiff  # 5 frames merged
              slowpoke still --at 1 --at 2                   # clip-1s.png, clip-2s.png
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("A timeline time to take a still at: 3.2, 00:00:03.2, 50%, end (the last picture; may be given again).", valueName: "time"),
            transform: TimeArgument.init(parsing:))
    var at: [TimeArgument] = []

    @Option(name: .shortAndLong, parsing: .unconditionalSingleValue, help: ArgumentHelp("The picture to write: .png, .jpg or .tiff (once, or once per --at).", valueName: "out"),
            completion: .file(extensions: ["png", "jpg", "jpeg", "tif", "tiff"]))
    var output: [String] = []

    @Option(help: ArgumentHelp("Take the sharpest of the frame shown and N frames either side (variance of the Laplacian).", valueName: "N"))
    var best: Int = 0

    @Option(help: ArgumentHelp("Merge the K frames nearest the one taken, aligned by optical flow, to lower the noise.", valueName: "K"))
    var merge: Int = 1

    @Flag(help: "Replace the pictures if they exist.")
    var force = false

    func validate() throws {
        if at.isEmpty { throw ValidationError("give --at with the timeline time of the still, such as --at 3.2") }
        if output.count > 1 && output.count != at.count {
            throw ValidationError("give -o once, or once for each of the \(at.count) --at, not \(output.count) times")
        }
        if !(0...100).contains(best) { throw ValidationError("--best takes 0 to 100 frames either side, not \(best)") }
        if !(1...15).contains(merge) { throw ValidationError("--merge takes 1 to 15 frames, not \(merge)") }
    }

    func run() throws {
        LibAV.preload()
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        let source = ExportSource(document: document, at: url)
        let end = source.timeline.duration
        let times = at.map { $0.value.resolved(timelineEnd: end) }
        let movie = DocumentStore.movieURL(of: document, at: url)
        let targets = times.enumerated().map { k, t in target(k, time: t, movie: movie, folder: url.deletingLastPathComponent()) }
        let requests = zip(times, targets).map { StillExporter.Request(time: $0, output: $1.url) }
        var exporter = StillExporter(source: source)
        exporter.force = force
        let results: [StillExporter.Result]
        do {
            results = try exporter.write(requests, options: StillExporter.Options(best: best, merge: merge),
                                         warning: { Terminal.note("warning: \($0)") })
        } catch ExportError.unsupported(let why) where why.hasPrefix("the timeline runs from 0") {
            throw CLIError("--at: \(why)")
        }
        for (k, result) in results.enumerated() {
            print(Self.summary(result, shown: targets[k].shown))
        }
    }

    /// The file for the k-th `--at`, and its name as the summary shows it.
    private func target(_ k: Int, time: Time, movie: URL, folder: URL) -> (url: URL, shown: String) {
        let label = "\(time.shown)s"
        if output.count == at.count { return (URL(fileURLWithPath: output[k]), output[k]) }
        if let one = output.first {
            let ext = (one as NSString).pathExtension
            let named = (one as NSString).deletingPathExtension + "-\(label)" + (ext.isEmpty ? "" : ".\(ext)")
            return (URL(fileURLWithPath: named), named)
        }
        let name = movie.deletingPathExtension().lastPathComponent + "-\(label).png"
        return (folder.appendingPathComponent(name), name)
    }

    /// `wrote frame.png: 1280x720, 8-bit RGB, source frame 192 (3.2 s) shown at 10.4 s; …`.
    static func summary(_ r: StillExporter.Result, shown: String) -> String {
        let kind = r.format == .jpeg ? "8-bit JPEG" : "\(r.bitsPerSample)-bit RGB"
        var line = "wrote \(shown): \(r.width)x\(r.height) \(kind), source frame \(r.sourceFrame) (\(r.sourceTime.shown) s) at \(r.time.shown) s"
        if r.compared > 1, let sharpness = r.sharpness {
            line += "; the sharpest of \(r.compared) frames (variance of the Laplacian \(String(format: "%.1f", sharpness))"
                + (r.sourceFrame == r.shownFrame ? ", the frame shown)" : "; the timeline shows frame \(r.shownFrame))")
        }
        if r.merged > 1 {
            line += "; \(r.merged) frames merged" + (r.mergeWeight.map { String(format: " (neighbours counted %.0f%%)", $0 * 100) } ?? "")
        }
        if !r.metadata.isEmpty { line += "; EXIF and XMP: " + r.metadata.joined(separator: ", ") }
        line += "; colour: " + r.colour
        return line
    }
}
