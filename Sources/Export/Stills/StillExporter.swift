import Foundation
public import Composition
import SafeFiles
internal import CFFmpeg
import Media

/// `slowpoke still`: the picture the timeline shows at a time, written as a PNG, JPEG or TIFF
/// file at the source's full resolution, upright (the stream's rotation applied) and at its
/// display shape (non-square pixels made square across), 16 bits a sample in PNG and TIFF for
/// sources deeper than 8, with the movie's capture date, place, make and model as EXIF and XMP, and its colour
/// tags as the format can hold them (``StillColour``). The
/// frame is the one ``StillFrameChoice`` names, decided as `export --fps` decides; it may be
/// replaced by the sharpest frame near it (``Options/best``, ``Sharpness``) and merged with
/// its neighbours to lower the noise (``Options/merge``, ``FrameMerge``).
public struct StillExporter {
    public struct Options: Sendable {
        /// Compare the frame shown with this many frames either side (of the same segment) and
        /// take the sharpest; 0 takes the frame shown.
        public var best: Int
        /// Merge this many frames (the one taken and its nearest neighbours in the segment); 1
        /// merges nothing.
        public var merge: Int

        public init(best: Int = 0, merge: Int = 1) {
            self.best = best
            self.merge = merge
        }
    }

    public struct Request: Sendable {
        public let time: Time
        public let output: URL
        public init(time: Time, output: URL) {
            self.time = time
            self.output = output
        }
    }

    public struct Result: Sendable {
        public let output: URL
        public let time: Time
        public let format: StillFormat
        /// The source frame taken (by its index in the movie, from 0) and its time in the movie.
        public let sourceFrame: Int
        public let sourceTime: Time
        /// The frame the timeline shows there (another when ``Options/best`` chose one).
        public let shownFrame: Int
        public let width: Int
        public let height: Int
        public let bitsPerSample: Int
        /// The frames compared for sharpness, and the variance of the Laplacian of the one taken.
        public let compared: Int
        public let sharpness: Double?
        /// The frames merged (1: none), and the mean weight the neighbours got (0 to 1).
        public let merged: Int
        public let mergeWeight: Double?
        /// The capture metadata written as EXIF and XMP (`date`, `location`, `make`, `model`).
        public let metadata: [String]
        /// The colour tags written (`ICC sRGB IEC61966-2.1`, `cICP 9/18`, …; ``StillColour``).
        public let colour: String
    }

    public let source: ExportSource
    /// Replace existing files.
    public var force = false

    public init(source: ExportSource) {
        self.source = source
    }

    /// Writes every request's still, in order of their frames in the movie (one demuxer and
    /// one decoder serve them all). Checks every request before any work.
    public func write(_ requests: [Request], options: Options = Options(),
                      progress: (Double) throws -> Void = { _ in }, warning: @escaping (String) -> Void = { _ in }) throws -> [Result] {
        guard let video = source.media.primaryVideo,
              let documentTrack = source.timeline.track(withID: Int32(video.index)) else {
            throw ExportError.unsupported("\(source.name) has no video to take a still from")
        }
        let formats = try requests.map { request throws -> StillFormat in
            guard let format = StillFormat(url: request.output) else {
                throw ExportError.unsupported("\(request.output.lastPathComponent): a still is written as .png, .jpg or .tiff, not .\(request.output.pathExtension.isEmpty ? "(no extension)" : request.output.pathExtension)")
            }
            guard request.time >= .zero, request.time <= documentTrack.duration else {
                throw ExportError.unsupported("the timeline runs from 0 to \(documentTrack.duration.readable), and a still is taken inside it, not at \(request.time.readable)")
            }
            return format
        }
        try LibAV.load()
        let input = try InputFormatContext(path: source.movie.path)
        let scan = try VideoScan(input: input, stream: video.index, name: source.name, keepPackets: false, warning: warning)
        let track = scan.truncated
            ? try CompositionTrack(trackID: documentTrack.trackID, mediaType: .video,
                                   segments: CompositionTrackSegment.cut(documentTrack.segments, atSourceEnd: scan.end))
            : documentTrack
        let metadata = CaptureMetadata(input: input, stream: video.index)
        let plans = try requests.map { request throws -> StillPlan in
            guard request.time <= track.duration, let choice = try StillFrameChoice(track: track, scan: scan, at: request.time) else {
                throw ExportError.unsupported("the timeline shows \(request.time <= track.duration ? "a gap (black)" : "no readable frame") at \(request.time.readable); there is no picture to take there")
            }
            return StillPlan(request: request, choice: choice, options: options)
        }
        var needed = [Bool](repeating: false, count: scan.frameCount)
        for plan in plans { for i in plan.frames { needed[i] = true } }
        let decoder = try FrameDecoder(input: input, stream: video.index, scan: scan, needed: needed, name: source.name, warning: warning)
        let rotation = Self.quarterTurns(video.rotation)
        var results = [Result?](repeating: nil, count: requests.count)
        let order = plans.indices.sorted { plans[$0].frames.lowerBound < plans[$1].frames.lowerBound }
        for (done, k) in order.enumerated() {
            let plan = plans[k]
            results[k] = try write(plan, format: formats[k], decoder: decoder, scan: scan, rotation: rotation, metadata: metadata)
            if done + 1 < order.count { decoder.release(behind: plans[order[done + 1]].frames.lowerBound) }
            try progress(Double(done + 1) / Double(order.count))
        }
        return results.map { $0! }
    }

    /// Clockwise rotation rounded to quarter turns: 0, 90, 180 or 270.
    static func quarterTurns(_ degrees: Double?) -> Int {
        guard let degrees, degrees.isFinite else { return 0 }
        let turns = Int((degrees / 90).rounded()) % 4
        return (turns + 4) % 4 * 90
    }
}
