import Foundation
import SafeFiles
public import Composition
public import Project
internal import TimePitch
internal import CFFmpeg

/// One export in progress, as `AVAssetExportSession` is: it owns the output file (written under
/// a temporary name and renamed only when complete), the muxer, every stream but the video's
/// own packets, and their interleaving. An exporter decides only how its video packets are made
/// (copied with mapped timestamps, or decoded and encoded) and hands them to ``write(video:in:)``.
///
/// The life of a session:
/// 1. ``target(of:output:)`` reads the document and picks the output (exporters do this when
///    they are made, so a bad document or output name fails before any work);
/// 2. `init` claims the output and finds the video stream and its track;
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
    let document: ProjectDocument
    /// The movie the document edits (checked against its fingerprint when the document was read).
    let movie: URL
    /// How the movie is named in messages: as the document records it.
    let movieName: String
    let destination: OutputFile
    /// libavformat's name of the output's muxer.
    let muxer: String
    /// The movie's video stream, and the timeline's track for it.
    let videoStream: StreamInfo
    let videoTrack: CompositionTrack

    private var writer: MovieWriter?
    private var audio: AudioTracks?
    private var subtitles: SubtitleTracks?
    private var videoOut: UnsafeMutablePointer<AVStream>?

    /// The containers slowpoke exports movies to, by extension, with libavformat's muxer names.
    static let muxers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska", "webm": "webm"]
    /// The extensions users are told about, in order.
    static let extensions = ["mp4", "mov", "mkv", "webm"]

    /// Whether `muxer` writes Matroska: mkv, or WebM (Matroska limited to VP8, VP9 and AV1
    /// video, Opus and Vorbis audio and WebVTT subtitles).
    static func isMatroska(_ muxer: String) -> Bool { muxer == "matroska" || muxer == "webm" }

    /// The document at `documentURL` (its movie checked against the fingerprint) and the output:
    /// `output`, or by default ``defaultOutput(for:at:)``, in a container slowpoke exports.
    static func target(of documentURL: URL, output: URL?) throws -> (document: ProjectDocument, output: URL) {
        let document = try DocumentStore.read(documentURL)
        let output = output ?? defaultOutput(for: document, at: documentURL)
        try ExportError.requireExtension(of: output, in: extensions, "slowpoke exports")
        return (document, output)
    }

    /// For `--fps`: the document, the output and the codec that encodes it, `requested` or by
    /// default the one that keeps the source's alpha channel in the output's container
    /// (``VideoCodec/defaultCodec(alphaSource:container:)``; a WebM movie with alpha stays WebM,
    /// as VP9); a codec the container cannot hold is refused here, before any work.
    static func encodingTarget(of documentURL: URL, output: URL?, fps: Rational,
                               codec requested: VideoCodec?) throws -> (document: ProjectDocument, output: URL, codec: VideoCodec) {
        let document = try DocumentStore.read(documentURL)
        let movie = DocumentStore.movieURL(of: document, at: documentURL)
        var alpha = false
        if let video = document.media.primaryVideo {
            alpha = SourceAlpha.has(try InputFormatContext(path: movie.path).stream(video.index))
        }
        let webm = requested == .vp9 || (requested == nil && alpha)
        let output = output ?? documentURL.deletingLastPathComponent().appendingPathComponent(
            OutputNaming.defaultMovieName(for: movie, encodingVideo: true, fps: fps, encodingWebM: webm))
        try ExportError.requireExtension(of: output, in: extensions, "slowpoke exports")
        let codec = requested ?? VideoCodec.defaultCodec(alphaSource: alpha, container: output.pathExtension)
        try codec.check(output: output)
        return (document, output, codec)
    }

    /// `<movie-stem>-slowpoke.<ext>` beside the document, keeping the movie's container when it
    /// is one slowpoke exports (a WebM movie whose video `--fps` re-encodes as H.264 goes to
    /// mkv), otherwise mp4.
    static func defaultOutput(for document: ProjectDocument, at documentURL: URL) -> URL {
        let movie = DocumentStore.movieURL(of: document, at: documentURL)
        let name = OutputNaming.defaultMovieName(for: movie)
        return documentURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Claims `output` (refusing the movie itself, and an existing file unless `force`) and
    /// finds the video to export.
    init(document: ProjectDocument, documentURL: URL, output: URL, force: Bool, protecting others: [URL] = []) throws {
        self.document = document
        movie = DocumentStore.movieURL(of: document, at: documentURL)
        movieName = document.movie.path
        destination = try OutputFile.claim(output, force: force, inputs: [movie, documentURL] + others)
        guard let videoStream = document.media.primaryVideo else {
            throw ExportError.unsupported("\(movieName) has no video; export its audio alone with AudioExporter (`slowpoke export` does, to .m4a, .wav, .flac, .mp3 or .opus)")
        }
        guard let videoTrack = document.timeline.track(withID: Int32(videoStream.index)) else {
            throw ExportError.unsupported("the timeline has no video track")
        }
        self.videoStream = videoStream
        self.videoTrack = videoTrack
        muxer = Self.muxers[output.pathExtension.lowercased()]!
    }

    /// Whether the container can keep frames as undisplayed references behind an edit list of
    /// its own (mp4 and mov can; Matroska cannot).
    var canHideFrames: Bool { muxer == "mp4" || muxer == "mov" }

    /// Checks before any work, from one look at the movie: with `copyingVideo` (passthrough),
    /// refuses a video codec the container cannot hold; then returns what of the movie this
    /// export does not carry, one sentence each, for the exporter to warn with (every stream of
    /// a movie is the user's; none goes without a word).
    func preflight(copyingVideo: Bool, settings: TimePitchSettings) throws -> [String] {
        let input = try InputFormatContext(path: movie.path)
        if copyingVideo { try checkContainerHolds(videoOf: input) }
        let sizes = try sizeChangeWarning(copyingVideo: copyingVideo, encodedSize: input.stream(videoStream.index).parameters.pointee)
        let plan = StreamPlan(input: input, document: document, container: destination.destination.pathExtension.lowercased(),
                              muxer: muxer, copyingVideo: copyingVideo, settings: settings)
        subtitlePlan = plan.subtitles
        return sizes + plan.warnings(movieName: movieName, input: input)
    }

    /// Video that changes size mid-file (``VideoSizeChange``): passthrough into mp4 or mov, whose
    /// track states one sample description, is refused; into Matroska it is copied as it is, and
    /// `--fps` scales every picture to the encoder's size with its aspect kept. Either is said.
    private func sizeChangeWarning(copyingVideo: Bool, encodedSize: AVCodecParameters) throws -> [String] {
        guard let sizes = videoStream.sizeChanges else { return [] }
        let ext = destination.destination.pathExtension
        let what = "\(movieName)'s video changes size mid-file (\(VideoSizeChange.summary(sizes)))"
        if copyingVideo && canHideFrames {
            throw ExportError.unsupported("\(what), and .\(ext) states one picture size per track, so players would show every picture at the first; export to .mkv to copy it as it is, or with --fps to scale every picture to \(sizes[0].width)x\(sizes[0].height)")
        }
        if copyingVideo { return ["\(what); it is copied as it is (.\(ext) states the first size; players show each picture at its own)"] }
        return ["\(what); --fps scales every picture to \(encodedSize.width)x\(encodedSize.height), its aspect kept (on black where it differs)"]
    }

    /// What the export does with each subtitle stream (set by ``preflight(copyingVideo:settings:)``).
    private var subtitlePlan: [(stream: Int, fate: SubtitleTracks.Fate)] = []

    /// Refuses a passthrough video codec the output container cannot hold.
    private func checkContainerHolds(videoOf input: InputFormatContext) throws {
        let codec = input.stream(videoStream.index).parameters.pointee.codec_id
        guard let format = av_guess_format(muxer, nil, nil), avformat_query_codec(format, codec, 0) == 0 else { return }
        let name = String(cString: avcodec_get_name(codec))
        let holders = Self.extensions.filter { ext in
            av_guess_format(Self.muxers[ext]!, nil, nil).map { avformat_query_codec($0, codec, 0) == 1 } ?? false
        }
        // --fps writes H.264 or HEVC, which WebM cannot hold either.
        let reencode = muxer == "webm" ? "" : ", or with --fps to re-encode it"
        let advice = holders.isEmpty ? (muxer == "webm" ? "export to .mkv with --fps to re-encode it" : "export with --fps to re-encode it")
            : "export to ." + holders.joined(separator: " or .") + reencode
        throw ExportError.unsupported(".\(destination.destination.pathExtension) cannot hold \(movieName)'s \(name) video; \(advice)")
    }

    /// Whether a timeline of `segments` plays the source from its start, once, at rate 1 (and
    /// `settings` shift no pitch): then its audio is copied packet for packet instead of
    /// rendered (as long as the video keeps every frame too, which the exporter knows).
    static func playsSourceUntouched(_ segments: [CompositionTrackSegment], settings: TimePitchSettings? = nil) -> Bool {
        segments.count == 1 && segments[0].rate == .one && segments[0].target.start == .zero
            && segments[0].source?.start == .zero && (settings?.semitones ?? 0) == 0
    }

    /// The movie's audio streams, in order, the document's first.
    var audioStreams: [Int] { document.media.streams.filter { $0.kind == .audio }.map(\.index) }

    /// Every audio track of the movie for a timeline of `segments` whose first video frame is at
    /// source time `origin` and which ends at `end`: copied when `untouched` (and the container
    /// holds the codec), otherwise rendered (starting at once, on threads of their own).
    /// `waiting` runs about every 50 ms while the muxer waits for rendered audio and may throw
    /// to stop the export.
    func audio(segments: [CompositionTrackSegment], untouched: Bool, origin: Time, end: Time,
               settings: TimePitchSettings, bitRate: Int,
               waiting: @escaping () throws -> Void, warning: @escaping (String) -> Void) throws -> AudioTracks {
        let input = try InputFormatContext(path: movie.path)
        return try AudioTracks(movie: movie, input: input, streams: audioStreams, name: movieName, segments: segments,
                               untouched: untouched, settings: settings, bitRate: bitRate, origin: origin, end: end,
                               muxer: muxer, display: destination.destination.path, waiting: waiting, warning: warning)
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
        let writer = try MovieWriter(path: destination.openablePath, display: destination.destination.path, muxer: muxer)
        let video = try addVideo(writer)
        videoOut = video.stream
        // The timecode reads what the source's did at the timeline's first frame.
        let first = segments.first.flatMap { $0.source?.start ?? $0.heldTime }?.seconds ?? 0
        Timecode.carry(from: source.stream(videoStream.index).pointer, to: video.stream, offset: first)
        try audio.attach(to: writer)
        let globalHeader = writer.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        let subtitles = try SubtitleTracks(movie: movie, plan: subtitlePlan, segments: segments, origin: origin,
                                           globalHeader: globalHeader, display: destination.destination.path, warning: warning)
        try subtitles.attach(to: writer)
        if muxer == "matroska" {
            // (WebM holds no attachments.)
            for i in 0..<source.streamCount where source.stream(i).parameters.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT {
                _ = try writer.addStream(copying: source.stream(i), timeBase: AVRational(num: 1, den: 1000))
            }
        }
        let chapters = try ChapterList(source, segments: segments, origin: origin, display: destination.destination.path)
        if let line = chapters.removedWarning(movieName: movieName) { warning(line) }
        try chapters.write(into: writer.context)
        av_dict_copy(&writer.context.pointee.metadata, source.pointer.pointee.metadata, 0)
        try writer.writeHeader(videoTimescale: Self.isMatroska(muxer) ? nil : videoTimescale)
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
        av_packet_rescale_ts(packet, timeBase, videoOut.pointee.time_base)
        try writer.write(packet)
    }

    /// Writes the audio that is left and the file's trailer.
    func finish() throws {
        guard let writer, let audio else { preconditionFailure("ExportSession.finish before start") }
        try audio.finish(writer: writer)
        try subtitles?.finish(writer: writer)
        try writer.finish()
    }

    /// Renames the finished file into place.
    func commit() throws { try destination.commitExport() }
}
