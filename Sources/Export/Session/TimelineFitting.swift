import Foundation
public import Composition
import TimePitch
internal import CFFmpeg
import Media

/// Where an export fits its timeline to the frames of the audio it copies (``FrameGridFit``):
/// the grid of the document's first audio track when smart audio splices it (AAC, or Opus in
/// Matroska), and the fitted segments every stream of the export then follows, video included.
/// `--exact` (`exact`) keeps the timeline as the document has it.
enum TimelineFitting {
    /// The frame grid smart audio copies `parameters`' packets on into `container`; nil when
    /// that audio is copied whole, rendered whole, or is PCM (whose packets split at any sample).
    static func grid(of parameters: AVCodecParameters, container: Container, settings: TimePitchSettings) -> FrameGrid? {
        guard AudioCodecChoice(source: parameters, container: container, aacBitRate: 192_000)
            .splicesMovieAudio(parameters, container: container, semitones: settings.semitones) else { return nil }
        return grid(of: parameters)
    }

    /// The frame grid of `source`'s first audio track (its movie opened as `header`) when smart
    /// audio splices it into `container`; nil when `exact`, or when it does not.
    static func grid(source: ExportSource, header input: InputFormatContext, container: Container, settings: TimePitchSettings,
                     exact: Bool) -> FrameGrid? {
        guard !exact, let first = source.media.primaryAudio?.index else { return nil }
        // Audio on a clock that starts again is rendered whole (see AudioTracks): no grid.
        guard input.clock == nil else { return nil }
        return grid(of: input.stream(first).parameters.pointee, container: container, settings: settings)
    }

    /// Where `source`'s first audio track's packets lie along the source, when their grid
    /// changes (a joined or looped recording); nil without a `grid` to fit to.
    static func sourceGrid(of source: ExportSource, grid: FrameGrid?) throws -> SourceGrid? {
        guard let grid, let audio = source.media.primaryAudio else { return nil }
        return try AudioPacketScan.scanned(path: source.movie.path, stream: audio.index)?.sourceGrid(sampleRate: grid.sampleRate)
    }

    /// The frames of an AAC or Opus stream; nil for any other codec.
    static func grid(of parameters: AVCodecParameters) -> FrameGrid? {
        guard parameters.sample_rate > 0 else { return nil }
        switch parameters.codec_id {
        case AV_CODEC_ID_AAC:
            return FrameGrid(samplesPerFrame: parameters.frame_size > 0 ? Int64(parameters.frame_size) : 1024,
                             sampleRate: parameters.sample_rate, codecName: "AAC")
        case AV_CODEC_ID_OPUS:
            return FrameGrid(samplesPerFrame: Int64(parameters.sample_rate) / 50, sampleRate: parameters.sample_rate, codecName: "Opus")
        default:
            return nil
        }
    }

    /// `segments` fitted to `grid`, with what moved; as they are when `exact`, without a grid,
    /// or when the fitted times outgrow exact arithmetic (then the audio is handled as it was
    /// before fitting: exactly in place). With the video's `frames`, no cut moves across a
    /// frame: the fitted timeline plays the same frames in the same order, only at times moved
    /// by less than half an audio frame.
    static func fit(_ segments: [CompositionTrackSegment], grid: FrameGrid?, exact: Bool,
                    frames: FrameTimes?, sourceGrid: SourceGrid? = nil) -> ([CompositionTrackSegment], FrameGridFit.Summary?) {
        guard !exact, let grid, let last = segments.last,
              let fit = try? FrameGridFit.fitted(segments, to: grid, frames: frames, sourceGrid: sourceGrid), fit.moved > 0,
              let end = fit.segments.last else { return (segments, nil) }
        return (fit.segments, FrameGridFit.Summary(grid: grid, before: last.target.end, after: end.target.end, moved: fit.moved))
    }
}

extension TimelineFitting {
    /// For passthrough, whose cuts resume at keyframes that cannot move: `snapped` (its cuts at
    /// keyframes already) fitted with each cut's start moving instead of its end, then snapped
    /// again. A B-frame may keep a cut's start from ending where the fit puts it (a run may end
    /// only where the frames shown before it are the first decoded): snapping moves it earlier,
    /// and it is fitted again, a few times at most; a cut still off the grid after that keeps
    /// its snapped place, and its audio is handled as without fitting.
    static func fitSnapped(_ snapped: [CompositionTrackSegment], grid: FrameGrid?, exact: Bool, points: CutPoints,
                           carriesHidden: Bool, frames: FrameTimes, sourceGrid: SourceGrid? = nil) throws -> ([CompositionTrackSegment], FrameGridFit.Summary?) {
        guard !exact, let grid, let last = snapped.last else { return (snapped, nil) }
        var segments = snapped
        var moved = 0
        for _ in 0..<4 {
            guard let fit = try? FrameGridFit.fitted(segments, to: grid, cuts: .start, frames: frames, sourceGrid: sourceGrid), fit.moved > 0 else { break }
            moved = max(moved, fit.moved)
            segments = try KeyframeSnapping.snap(fit.segments, points: points, carriesHidden: carriesHidden).0
        }
        guard moved > 0, let end = segments.last else { return (snapped, nil) }
        return (segments, FrameGridFit.Summary(grid: grid, before: last.target.end, after: end.target.end, moved: moved))
    }
}

extension ExportSession {
    /// The frame grid of the first audio track when smart audio splices it (see
    /// ``TimelineFitting``); nil when `exact`, or when it does not.
    func copiedAudioGrid(exact: Bool) throws -> FrameGrid? {
        try TimelineFitting.grid(source: source, header: header(), container: container, settings: settings, exact: exact)
    }

    /// The timeline's video track, which every stream of a movie export follows, fitted to the
    /// frame grid of the first audio track, and what moved.
    func fittedVideoTrack(exact: Bool, frames: FrameTimes?) throws -> (CompositionTrack, FrameGridFit.Summary?) {
        let grid = try copiedAudioGrid(exact: exact)
        let (segments, fit) = TimelineFitting.fit(videoTrack.segments, grid: grid, exact: exact, frames: frames,
                                                  sourceGrid: try TimelineFitting.sourceGrid(of: source, grid: grid))
        return (try CompositionTrack(trackID: videoTrack.trackID, mediaType: .video, segments: segments), fit)
    }
}

extension FrameGridFit {
    /// How the default export of `source` to `output` fits the timeline (see
    /// ``TimelineFitting``), for `info`; nil when it keeps it as it is.
    public static func exportSummary(of source: ExportSource, output: URL) throws -> Summary? {
        let audioOnly = source.media.primaryVideo == nil
        guard let stream = source.media.primaryAudio,
              let track = source.timeline.track(withID: Int32(audioOnly ? stream.index : source.media.primaryVideo!.index)) else { return nil }
        try LibAV.load()
        guard let container = audioOnly ? Container(audioFile: output.pathExtension) : Container(movieAt: output) else { return nil }
        let input = try InputFormatContext(path: source.movie.path)
        let parameters = input.stream(stream.index).parameters.pointee
        let grid = input.clock != nil ? nil : audioOnly
            ? (AudioCodecChoice(audioFile: container, source: parameters, defaultBitRate: 192_000).splices(parameters, container: container)
                ? TimelineFitting.grid(of: parameters) : nil)
            : TimelineFitting.grid(of: parameters, container: container, settings: try TimePitchSettings())
        return TimelineFitting.fit(track.segments, grid: grid, exact: false, frames: nil,
                                   sourceGrid: try TimelineFitting.sourceGrid(of: source, grid: grid)).1
    }
}
