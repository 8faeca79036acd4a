import ArgumentParser
import Composition
import Batch
import Export
import Project
import Foundation
import Media

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the movie's facts and the timeline, segment by segment.",
        discussion: """
            Each row of the timeline is a segment: where it sits on the timeline, which part of \
            the movie it plays, and at what rate. With --json the same facts are printed as a \
            JSON object whose "schemaVersion" says its layout. A timeline of more than 40 rows \
            shows its first and last 20 and how many are left out; --all shows every row \
            (--json always holds every segment).

            Under the timeline, "Export" says what `slowpoke export` (passthrough, to the \
            default output) does with every stream of the movie: copied, retimed and encoded, \
            converted, or left out and why. Nothing is left out without a word. When the timeline \
            cuts the video, it also says how many frames the cuts re-encode and how many are \
            copied (or why the cuts move to keyframes).

            With the flags that choose another export (--fps N, --codec, --crf, --preset, -o, \
            --format, --program) "Export" is that export's plan instead: with --fps, what \
            becomes of every stream, each warning `export --fps` gives before any work, word for \
            word ("export will say: …": a 10-bit or PQ source into 8-bit H.264, HDR10+ that \
            H.264 drops, an alpha channel, streams left out), and the line `export --dry-run \
            --fps` prints (the output, the rate and the encoder); --json puts the same under \
            "exportConstantRate", each warning as its facts and its remedies. Nothing is \
            written or encoded.

            Examples:
              slowpoke info
              slowpoke info clip.mp4 --json
              slowpoke info --all
              slowpoke info --fps 30
              slowpoke info --fps 30 --codec hevc -o clip-30.mov
              slowpoke info broadcast.ts --program 2 --json
            """)

    @OptionGroup var options: DocumentOptions

    @OptionGroup var export: InfoExportOptions

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    @Flag(help: "Show every row of the timeline, not the first and last 20 of a long one.")
    var all = false

    @Flag(help: "With --json: list every frame the default export writes (exportPlan.frames): the source frame it shows, its time, copied or re-encoded.")
    var frames = false

    func validate() throws {
        if frames && !json { throw ValidationError("--frames lists the export's frames in the JSON; add --json") }
        if frames && export.encoding.fps != nil { throw ValidationError("--frames lists the frames of a passthrough export, which copies them; leave out --fps") }
    }

    func run() throws {
        LibAV.preload()
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        let source = try ExportChoice.source(document, at: url, program: export.program)
        if let constantRate = try export.constantRate(source, document: document, at: url) {
            if json {
                try Terminal.printJSON(InfoJSON(documentURL: url, document: document, export: nil, constantRate: constantRate))
            } else {
                print(try Report.info(document, documentName: url.lastPathComponent, all: all), terminator: "")
                print(Report.constantRate(constantRate), terminator: "")
            }
            return
        }
        let output = export.passthroughOutput(document, at: url)
        let streams = Result<StreamPlan?, any Error> { try StreamPlan.make(source: source, output: output, copyingVideo: true) }
        // The passthrough export's own plan (nil for audio alone, or a timeline that cuts
        // nothing): the fit, the cuts and what the export will say come from it.
        let video: Result<PassthroughPlan?, any Error> = document.media.primaryVideo == nil ? .success(nil)
            : Result { try CutPreview.plan(source: source, output: output) }
        let planned = (try? video.get()) ?? nil
        let exports = (try? streams.get()) != nil
        let fit = !exports ? nil : planned.map(\.fit) ?? ((try? FrameGridFit.exportSummary(of: source, output: output)) ?? nil)
        let cuts = video.map { $0.flatMap { CutPreview(plan: $0) } }
        if json {
            try Terminal.printJSON(InfoJSON(documentURL: url, document: document, export: try? streams.get(), fit: fit,
                                            cuts: (try? cuts.get()) ?? nil, plan: video, frames: frames))
        } else {
            print(try Report.info(document, documentName: url.lastPathComponent, all: all), terminator: "")
            print(Report.export(streams), terminator: "")
            if exports, let line = fit?.line { print("  \(line) (--exact keeps it)") }
            print(Report.cuts(cuts), terminator: "")
            if exports { print(Report.planned(video), terminator: "") }
        }
    }
}

/// The `info --json` layout. Times and rates are exact strings ("3.2", "1/3").
struct InfoJSON: Encodable {
    static let currentSchemaVersion = 1

    struct Track: Encodable {
        let id: Int32
        let mediaType: MediaType
        let duration: Time
        let segments: [CompositionTrackSegment]
    }

    let schemaVersion = currentSchemaVersion
    let document: String
    let movie: String
    let media: MediaInfo
    let duration: Time
    let tracks: [Track]
    let editsApplied: Int
    let editsUndone: Int
    let export: StreamPlan?
    /// How the default export fits the timeline to the copied audio's frames (issue 38).
    let exportFit: Fit?
    /// What the default export's cuts re-encode (issue 41).
    let exportCuts: Cuts?
    /// The default passthrough export's plan (issue 50): what `export` writes, frame by frame
    /// with `info --json --frames`.
    let exportPlan: Plan?
    /// Why the default passthrough export refuses the timeline, before any work.
    let exportRefusal: String?
    /// With `--fps`: that export's plan, in place of the passthrough keys above (issue 51).
    let exportConstantRate: ConstantRate?

    struct Plan: Encodable {
        let videoFrames: Int
        let copiedFrames: Int
        let reencodedFrames: Int
        let reencodedCuts: Int
        let reencodedReversals: Int
        let heldFrames: Int
        let blackFrames: Int
        let duration: Time
        let timescale: Int32
        let exactTimes: Bool
        let keyframeCutsBecause: String?
        let movedCuts: [MovedCut]
        let warnings: [String]
        let segments: [CompositionTrackSegment]
        let frames: [PassthroughPlan.Frame]?
    }

    struct MovedCut: Encodable {
        let requested: TimeRange
        let actual: TimeRange?
    }

    struct Fit: Encodable {
        let codec: String
        let samplesPerFrame: Int64
        let sampleRate: Int32
        let duration: Time
        let fittedDuration: Time
        let segmentsMoved: Int
    }

    struct Cuts: Encodable {
        let reencodedFrames: Int
        let cuts: Int
        let reversedRanges: Int
        let copiedFrames: Int
        let keyframeCutsBecause: String?
    }

    init(documentURL: URL, document: ProjectDocument, export: StreamPlan??, fit: FrameGridFit.Summary? = nil, cuts: CutPreview? = nil,
         plan: Result<PassthroughPlan?, any Error> = .success(nil), frames: Bool = false, constantRate: ConstantRatePlan? = nil) {
        self.export = export ?? nil
        exportConstantRate = constantRate.map(ConstantRate.init)
        switch plan {
        case .success(let plan?):
            exportPlan = Plan(videoFrames: plan.videoFrames, copiedFrames: plan.copiedFrames, reencodedFrames: plan.reencodedFrames,
                              reencodedCuts: plan.reencodedCuts, reencodedReversals: plan.reencodedReversals,
                              heldFrames: plan.heldFrames, blackFrames: plan.blackFrames, duration: plan.duration,
                              timescale: plan.timescale, exactTimes: plan.exact, keyframeCutsBecause: plan.keyframeCutsBecause,
                              movedCuts: plan.movedCuts.map { MovedCut(requested: $0.requested, actual: $0.actual) },
                              warnings: plan.warnings.map(FlagAdvice.text), segments: plan.timeline, frames: frames ? plan.frames : nil)
            exportRefusal = nil
        case .success(nil):
            (exportPlan, exportRefusal) = (nil, nil)
        case .failure(let error):
            (exportPlan, exportRefusal) = (nil, FlagAdvice.message(for: error) ?? error.localizedDescription)
        }
        exportFit = fit.flatMap { $0.moved == 0 ? nil : $0 }.map { Fit(codec: $0.grid.codecName, samplesPerFrame: $0.grid.samplesPerFrame, sampleRate: $0.grid.sampleRate,
                                  duration: $0.before, fittedDuration: $0.after, segmentsMoved: $0.moved) }
        exportCuts = cuts.map { Cuts(reencodedFrames: $0.reencodedFrames, cuts: $0.cuts, reversedRanges: $0.reversals, copiedFrames: $0.copiedFrames,
                                     keyframeCutsBecause: $0.keyframeCutsBecause) }
        self.document = documentURL.path
        self.movie = DocumentStore.movieURL(of: document, at: documentURL).path
        self.media = document.media
        self.duration = document.timeline.duration
        self.tracks = document.timeline.tracks.map {
            Track(id: $0.trackID, mediaType: $0.mediaType, duration: $0.duration, segments: $0.segments)
        }
        self.editsApplied = document.history.applied
        self.editsUndone = document.history.count - document.history.applied
    }
}
