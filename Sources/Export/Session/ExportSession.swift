import Foundation
import SafeFiles
public import Composition
internal import TimePitch
internal import CFFmpeg
import Media

/// One export in progress, as `AVAssetExportSession` is: it owns the output file (written under
/// a temporary name and renamed only when complete), the muxer, every stream but the video's
/// own packets, and their interleaving. An exporter decides only how its video packets are made
/// (copied with mapped timestamps, or decoded and encoded) and hands them to ``write(video:in:)``.
///
/// The life of a session:
/// 1. `init` claims the output (its container checked, which exporters also do when they are
///    made, so that a bad output name fails before any work) and finds the video and its track;
/// 2. ``preflight(copyingVideo:)`` checks what the container holds and says what the
///    export leaves out;
/// 3. ``audio(segments:untouched:origin:end:settings:bitRate:waiting:warning:)`` prepares the
///    audio, which may start rendering at once;
/// 4. ``start(audio:videoTimescale:addVideo:)`` opens the muxer, adds the video stream, the
///    audio and the movie's metadata, and writes the header;
/// 5. ``write(video:in:)`` for every video packet, in decode order, then ``finish()``;
/// 6. ``commit()`` renames the finished file into place.
///
/// Steps 4 and 5 may run on another thread than the rest (the CFR exporter encodes and muxes
/// on a thread of its own), one thread at a time.
final class ExportSession {
    /// The movie, its facts and the timeline.
    let source: ExportSource
    let destination: ExportTarget
    /// The output's container.
    let container: Container
    /// The movie's video stream, and the timeline's track for it.
    let videoStream: StreamInfo
    let videoTrack: CompositionTrack
    /// How the audio is retimed, and the bit rate of what is encoded as AAC.
    let settings: TimePitchSettings
    let audioBitRate: Int

    private var writer: MovieWriter?
    private var opened: InputFormatContext?
    private var audio: AudioTracks?
    private var subtitles: SubtitleTracks?
    private var videoOut: UnsafeMutablePointer<AVStream>?

    /// The movie container of `output`, refused before any work when slowpoke writes no movie so.
    static func container(of output: URL) throws(ExportError) -> Container {
        guard let container = Container(movieAt: output) else {
            try ExportError.requireExtension(of: output, in: Container.movieExtensions, "slowpoke exports")
            preconditionFailure("requireExtension accepted an extension Container does not know")
        }
        return container
    }

    /// Claims `output` (refusing the movie itself, the source's protected inputs, and an
    /// existing file unless `force`) and finds the video to export.
    init(source: ExportSource, output: URL, force: Bool, settings: TimePitchSettings, audioBitRate: Int) throws {
        self.source = source
        self.settings = settings
        self.audioBitRate = audioBitRate
        container = try Self.container(of: output)
        destination = try ExportTarget.claim(output, force: force, inputs: source.inputs)
        guard let videoStream = source.media.primaryVideo else {
            throw ExportError.unsupported("\(source.name) has no video; export its audio alone with AudioExporter (`slowpoke export` does, to .m4a, .wav, .flac, .mp3 or .opus)")
        }
        guard let videoTrack = source.timeline.track(withID: Int32(videoStream.index)) else {
            throw ExportError.unsupported("the timeline has no video track")
        }
        self.videoStream = videoStream
        self.videoTrack = videoTrack
    }

    /// The movie the timeline plays, and how messages name it.
    var movie: URL { source.movie }
    var movieName: String { source.name }

    /// The movie opened once for what its header states (stream parameters, chapters, clock),
    /// shared by the checks before the export; nothing reads packets from it. Each open costs
    /// a moov parse and, but for an mp4's later openings (``StreamInfoCache``), a decoded frame
    /// or two (`avformat_find_stream_info`).
    func header() throws -> InputFormatContext {
        if let opened { return opened }
        let input = try InputFormatContext(path: movie.path)
        opened = input
        return input
    }

    /// Closes ``header()``'s movie once the checks are done (it holds an index of every sample,
    /// which grows with the movie's length).
    func closeHeader() { opened = nil }

    /// Checks before any work, from one look at the movie: with `copyingVideo` (passthrough),
    /// refuses a video codec the container cannot hold; then returns what of the movie this
    /// export does not carry, one sentence each, for the exporter to warn with (every stream of
    /// a movie is the user's; none goes without a word).
    func preflight(copyingVideo: Bool) throws -> [Notice] {
        let (notices, plan) = try Self.preflight(header: try header(), source: source, container: container,
                                                 copyingVideo: copyingVideo, settings: settings)
        subtitlePlan = plan.subtitles
        streamPlan = plan
        return notices
    }

    /// ``preflight(copyingVideo:)`` for `source` exported to `container`, from its movie's
    /// `header`, without a session (nothing claimed): the warnings, and the plan they come from.
    /// `ConstantRateExporter.preview()` (`export --dry-run --fps`, `info --fps`) says these too.
    static func preflight(header input: InputFormatContext, source: ExportSource, container: Container, copyingVideo: Bool,
                          settings: TimePitchSettings) throws -> (notices: [Notice], plan: StreamPlan) {
        guard let videoStream = source.media.primaryVideo else {
            throw ExportError.unsupported("\(source.name) has no video; export its audio alone with AudioExporter (`slowpoke export` does, to .m4a, .wav, .flac, .mp3 or .opus)")
        }
        if copyingVideo { try checkContainerHolds(videoOf: input, stream: videoStream, container: container, movieName: source.name) }
        let sizes = try sizeChangeWarning(videoStream, container: container, movieName: source.name, copyingVideo: copyingVideo,
                                          encodedSize: input.stream(videoStream.index).parameters.pointee)
        let plan = StreamPlan(input: input, source: source, container: container, copyingVideo: copyingVideo, settings: settings)
        return (sizes + plan.warnings(movieName: source.name, input: input).map { Notice($0) }, plan)
    }

    /// Video that changes size mid-file (``VideoSizeChange``): passthrough into mp4 or mov, whose
    /// track states one sample description, is refused; into Matroska it is copied as it is, and
    /// a constant-rate export scales every picture to the encoder's size with its aspect kept. Either is said.
    private static func sizeChangeWarning(_ videoStream: StreamInfo, container: Container, movieName: String, copyingVideo: Bool,
                                          encodedSize: AVCodecParameters) throws -> [Notice] {
        guard let sizes = videoStream.sizeChanges else { return [] }
        let ext = container.fileExtension
        let what = "\(movieName)'s video changes size mid-file (\(VideoSizeChange.summary(sizes)))"
        if copyingVideo && container.canHideFrames {
            throw ExportError.unavailable(Notice("\(what), and .\(ext) states one picture size per track, so players would show every picture at the first",
                                                 remedies: [Remedy(.container(["mkv"]), "to copy it as it is"),
                                                            Remedy(.constantRate, "to scale every picture to \(sizes[0].width)x\(sizes[0].height)")]))
        }
        if copyingVideo { return ["\(what); it is copied as it is (.\(ext) states the first size; players show each picture at its own)"] }
        return ["\(what); the constant-rate export scales every picture to \(encodedSize.width)x\(encodedSize.height), its aspect kept (on black where it differs)"]
    }

    /// What the export does with every stream (set by ``preflight(copyingVideo:)``).
    private(set) var streamPlan: StreamPlan?

    /// What the export does with each subtitle stream (set by ``preflight(copyingVideo:)``).
    private var subtitlePlan: [(stream: Int, fate: SubtitleTracks.Fate)] = []

    /// Refuses a passthrough video codec the output container cannot hold.
    private static func checkContainerHolds(videoOf input: InputFormatContext, stream videoStream: StreamInfo, container: Container,
                                            movieName: String) throws {
        let codec = input.stream(videoStream.index).parameters.pointee.codec_id
        guard container.format.map({ LibAVFormat.queryCodec($0, codec, 0) == 0 }) ?? false else { return }
        let name = String(cString: LibAVCodec.codecName(codec))
        let holders = Container.movieContainers(holding: codec)
        // A constant-rate export writes H.264 or HEVC, which WebM cannot hold either.
        var remedies = holders.isEmpty ? [] : [Remedy(.container(holders))]
        if holders.isEmpty && container.isWebM { remedies.append(Remedy(.container(["mkv"]), "and re-encode it at a constant frame rate")) }
        else if !container.isWebM { remedies.append(Remedy(.constantRate, "to re-encode it")) }
        throw ExportError.unavailable(Notice(".\(container.fileExtension) cannot hold \(movieName)'s \(name) video", remedies: remedies))
    }

    /// Whether a timeline of `segments` plays the source from its start, once, forwards at rate 1
    /// (and `settings` shift no pitch): then its audio is copied packet for packet instead of
    /// rendered (as long as the video keeps every frame too, which the exporter knows).
    static func playsSourceUntouched(_ segments: [CompositionTrackSegment], settings: TimePitchSettings? = nil) -> Bool {
        segments.count == 1 && segments[0].rate == .one && !segments[0].isReversed && segments[0].target.start == .zero
            && segments[0].source?.start == .zero && (settings?.semitones ?? 0) == 0
    }

    /// `track` (the video track, or it fitted) as far as the movie can be read: a truncated
    /// movie's timeline stops with its last readable frame, audio included (`scan.truncated`).
    func readable(_ track: CompositionTrack, scan: VideoScan) throws -> CompositionTrack {
        guard scan.truncated else { return track }
        return try CompositionTrack(trackID: track.trackID, mediaType: .video,
                                    segments: CompositionTrackSegment.cut(track.segments, atSourceEnd: scan.end))
    }

    /// Every audio track of the movie for a timeline of `segments` whose first video frame is at
    /// source time `origin` and which ends at `end`: copied when the timeline plays the source
    /// untouched, no pitch shifted, and `keepsEveryFrame` (the video keeps every frame too) and
    /// the container holds the codec; otherwise rendered (starting at once, on threads of their
    /// own). `waiting` runs about every 50 ms while the muxer waits for rendered audio and may
    /// throw to stop the export.
    func audio(segments: [CompositionTrackSegment], origin: Time, end: Time, keepsEveryFrame: Bool = true,
               waiting: @escaping () throws -> Void, warning: @escaping (String) -> Void) throws -> AudioTracks {
        let untouched = keepsEveryFrame && Self.playsSourceUntouched(segments, settings: settings)
        let setup = AudioSetup(movie: movie, name: movieName, segments: segments, origin: origin, end: end, settings: settings,
                               bitRate: audioBitRate, container: container, display: destination.display,
                               waiting: waiting, warning: warning)
        // The header's movie when it is still open: AudioTracks reads only its streams' parameters.
        return try AudioTracks(setup, input: opened ?? InputFormatContext(path: movie.path), streams: source.audioStreams, untouched: untouched)
    }

    /// Opens the muxer on the temporary file; `addVideo` adds the video stream to it (and may
    /// hand back what made it, an encoder say). Then the audio's streams, the subtitles and the
    /// attachments, the chapters and the movie's global metadata (title, creation time …) from
    /// `source` are added and the header is written. Subtitles and chapters follow the timeline
    /// of `segments`, whose source time 0 is the movie's `origin`. `videoTimescale` asks mp4 and
    /// mov for that video timescale.
    @discardableResult
    func start<Video>(audio: AudioTracks, segments: [CompositionTrackSegment], origin: Time,
                      videoTimescale: Int32?, metadata source: InputFormatContext, warning: (String) -> Void,
                      addVideo: (MovieWriter) throws -> (stream: UnsafeMutablePointer<AVStream>, made: Video)) throws -> Video {
        let writer = try MovieWriter(path: destination.openablePath, display: destination.display, container: container)
        let video = try addVideo(writer)
        videoOut = video.stream
        // The timecode reads what the source's did at the timeline's first frame.
        let first = segments.first.flatMap { $0.source?.start ?? $0.heldTime }?.seconds ?? 0
        let timecode = Timecode.carry(from: source.stream(videoStream.index).pointer, movie: source.pointer, to: video.stream, offset: first)
        try audio.attach(to: writer)
        let subtitles = try SubtitleTracks(movie: movie, plan: subtitlePlan, segments: segments, origin: origin,
                                           globalHeader: container.globalHeader, display: destination.display, warning: warning)
        try subtitles.attach(to: writer)
        if container.isFullMatroska {
            // (WebM holds no attachments.)
            for i in 0..<source.streamCount where source.stream(i).parameters.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT {
                _ = try writer.addStream(copying: source.stream(i), timeBase: AVRational(num: 1, den: 1000))
            }
        }
        let chapters = try ChapterList(source, segments: segments, origin: origin, display: destination.display)
        if let line = chapters.removedWarning(movieName: movieName) { warning(line) }
        try chapters.write(into: writer.context)
        av_dict_copy(&writer.context.pointee.metadata, source.pointer.pointee.metadata, 0)
        Timecode.replaceGlobal(in: &writer.context.pointee.metadata, with: timecode)
        try writer.writeHeader(videoTimescale: container.isMatroska ? nil : videoTimescale)
        self.writer = writer
        self.audio = audio
        self.subtitles = subtitles
        return video.made
    }

    /// Writes one video packet whose timestamps are in `timeBase`, after every audio packet due
    /// before it.
    func write(video packet: UnsafeMutablePointer<AVPacket>, in timeBase: AVRational) throws {
        guard let writer, let audio, let videoOut else { preconditionFailure("ExportSession.write before start") }
        try audio.pump(upTo: packet.pointee.dts, in: timeBase, writer: writer)
        try subtitles?.pump(upTo: packet.pointee.dts, in: timeBase, writer: writer)
        packet.pointee.stream_index = videoOut.pointee.index
        packet.pointee.pos = -1
        LibAVCodec.packetRescaleTS(packet, timeBase, videoOut.pointee.time_base)
        try writer.write(packet)
    }

    /// Writes the audio that is left and the file's trailer.
    func finish() throws {
        guard let writer, let audio else { preconditionFailure("ExportSession.finish before start") }
        try audio.finish(writer: writer)
        try subtitles?.finish(writer: writer)
        try writer.finish()
    }

    /// Renames the finished file into place, and reports the export done.
    func commit(progress: (Double) throws -> Void) throws {
        try destination.commitExport()
        try progress(1)
    }
}
