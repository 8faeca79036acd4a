import Foundation
public import Composition
public import Project
public import TimePitch
internal import CFFmpeg

/// `slowpoke export` without `--fps`: AVAssetExportSession's passthrough preset. Every video
/// packet is copied unchanged with its timestamps mapped exactly through the timeline; the audio
/// is rendered through TimePitch and encoded as AAC (or copied when the timeline is untouched).
public struct PassthroughExporter {
    public let document: ProjectDocument
    public let documentURL: URL
    public let output: URL
    public let settings: TimePitchSettings
    public let force: Bool
    /// AAC bit rate for re-encoded audio.
    public var audioBitRate = 192_000

    /// What an export did.
    public struct Result: Sendable {
        public let output: URL
        public let videoFrames: Int
        public let duration: Time
        /// The output video timescale, and whether every timestamp is exact in it.
        public let timescale: Int32
        public let exact: Bool
        public let audio: AudioHandling
        /// Cuts moved to keyframes: what was asked and what was done.
        public let cuts: [(requested: TimeRange, actual: TimeRange?)]
    }

    public enum AudioHandling: String, Sendable {
        case none, copied, rendered
    }

    /// The containers passthrough writes, by extension, with libavformat's muxer names.
    static let muxers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska"]
    /// The extensions users are told about, in order.
    static let extensions = ["mp4", "mov", "mkv"]

    /// Reads the document at `documentURL` (checking that its movie is unchanged) and
    /// prepares to export it to `output`, by default ``defaultOutput(for:at:)``.
    public init(documentURL: URL, output: URL? = nil, settings: TimePitchSettings, force: Bool) throws {
        (document, self.output) = try Self.open(documentURL, output: output)
        self.documentURL = documentURL
        self.settings = settings
        self.force = force
    }

    /// The document at `documentURL` (its movie checked against the fingerprint) and the output:
    /// `output`, or by default ``defaultOutput(for:at:)``, in a container slowpoke exports.
    /// Both exporters start here.
    static func open(_ documentURL: URL, output: URL?) throws -> (ProjectDocument, URL) {
        let document = try DocumentStore.read(documentURL)
        let output = output ?? defaultOutput(for: document, at: documentURL)
        try ExportError.requireExtension(of: output, in: extensions, "slowpoke exports")
        return (document, output)
    }

    /// `<movie-stem>-slowpoke.<ext>` beside the document, keeping the movie's container when it
    /// is one passthrough writes, otherwise mp4.
    public static func defaultOutput(for document: ProjectDocument, at documentURL: URL) -> URL {
        let movie = DocumentStore.movieURL(of: document, at: documentURL)
        let ext = movie.pathExtension.lowercased()
        let name = movie.deletingPathExtension().lastPathComponent + "-slowpoke." + (muxers[ext] != nil ? ext : "mp4")
        return documentURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    public func run(progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (String) -> Void = { _ in }) throws -> Result {
        // The movie was checked against its fingerprint when the document was read.
        let movie = DocumentStore.movieURL(of: document, at: documentURL)
        let destination = try AtomicOutput(destination: output, input: movie, force: force)
        guard let videoStream = document.media.primaryVideo else {
            throw ExportError.unsupported("\(document.movie.path) has no video; use `slowpoke stretch` for audio files")
        }
        guard let videoTrack = document.timeline.track(withID: Int32(videoStream.index)) else {
            throw ExportError.unsupported("the timeline has no video track")
        }

        // Rendered audio needs only the timeline and the source time of the first frame. When
        // the timeline removes nothing, no cut can move, so the audio starts rendering on its
        // own threads before the scan, from the first frame of the first GOP; it starts again
        // in the rare case that the scan finds an earlier one.
        let ext = output.pathExtension.lowercased()
        let muxer = Self.muxers[ext]!
        var done = 0.0
        func audioOutput(_ segments: [CompositionTrackSegment], origin: Time, end: Time, untouched: Bool) throws -> AudioTrackOutput {
            try AudioTrackOutput(movie: movie, stream: document.media.primaryAudio, segments: segments,
                                 untouched: untouched, settings: settings, bitRate: audioBitRate,
                                 origin: origin, end: end, muxer: muxer, display: destination.destination.path,
                                 waiting: { try progress(done) }, warning: warning)
        }
        var early: (audio: AudioTrackOutput, origin: Time)?
        if document.media.primaryAudio != nil, !Self.mayCopyAudio(videoTrack.segments, settings: settings),
           KeyframeSnapping.removesNothing(videoTrack.segments),
           let origin = try VideoScan.leadingOrigin(movie: movie, stream: videoStream.index) {
            early = (try audioOutput(videoTrack.segments, origin: origin, end: videoTrack.duration, untouched: false), origin)
        }

        // 1. Every video packet's timing, and the keyframes, from a demux-only pass.
        let scan = try VideoScan(movie: movie, stream: videoStream.index, name: document.movie.path, warning: warning)

        // 2. Cuts move to keyframes; the audio follows the same timeline.
        let (segments, cuts) = try KeyframeSnapping.snap(videoTrack.segments, keyframes: scan.keyframes)
        for cut in cuts {
            if let actual = cut.actual, actual != cut.requested {
                warning("passthrough cuts at keyframes: the removal of source \(cut.requested) became \(actual)")
            } else if cut.actual == nil {
                warning("passthrough cannot remove source \(cut.requested): no keyframe falls inside it (export with --fps to cut exactly)")
            }
        }
        if segments.contains(where: \.isEmpty) {
            warning("the timeline has gaps; passthrough cannot make new frames, so the frame before each gap stays on screen (export with --fps for black)")
        }
        let timeline = try CompositionTrack(trackID: videoTrack.trackID, mediaType: .video, segments: segments)
        let map = try PacketMap(packets: scan.packets, track: timeline, preferred: scan.timescale,
                                fixedTimescale: muxer == "matroska" ? 1000 : nil)

        // 3. Audio: copied when the timeline is untouched, otherwise rendered and encoded on
        // threads of its own while the video is copied (the copy waits for it).
        let untouched = Self.mayCopyAudio(segments, settings: settings) && scan.packets.count == map.entries.count
        let audio: AudioTrackOutput
        if let early, early.origin == scan.origin, segments == videoTrack.segments {
            audio = early.audio
        } else {
            early = nil
            audio = try audioOutput(segments, origin: scan.origin, end: timeline.duration, untouched: untouched)
        }

        // 4. Interleave the mapped video packets with the audio into the output.
        try mux(movie: movie, videoStream: videoStream.index, audio: audio, map: map, muxer: muxer,
                into: destination, progress: { fraction in
                    done = fraction
                    try progress(fraction)
                })
        try destination.commit()
        try progress(1)
        return Result(output: destination.destination, videoFrames: map.entries.count, duration: timeline.duration,
                      timescale: map.timescale, exact: map.exact, audio: audio.handling,
                      cuts: cuts.map { ($0.requested, $0.actual) })
    }

    /// Whether the timeline plays the whole source once at rate 1 with no pitch shift, so that
    /// the audio may be copied (if the video keeps every packet too).
    static func mayCopyAudio(_ segments: [CompositionTrackSegment], settings: TimePitchSettings) -> Bool {
        segments.count == 1 && segments[0].rate == .one && segments[0].target.start == .zero
            && segments[0].source?.start == .zero && settings.semitones == 0
    }

    // MARK: Muxing

    private func mux(movie: URL, videoStream: Int, audio: AudioTrackOutput, map: PacketMap, muxer: String,
                     into destination: AtomicOutput, progress: (Double) throws -> Void) throws {
        let video = try InputFormatContext(path: movie.path)
        for other in 0..<video.streamCount where other != videoStream { video.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
        let writer = try MovieWriter(path: destination.temporary.path, display: destination.destination.path, muxer: muxer)
        let videoOut = try writer.addStream(copying: video.stream(videoStream), timeBase: AVRational(num: 1, den: map.timescale))
        try audio.attach(to: writer)
        av_dict_copy(&writer.context.pointee.metadata, video.pointer.pointee.metadata, 0)
        try writer.writeHeader(videoTimescale: muxer == "matroska" ? nil : map.timescale)

        let mapTimeBase = AVRational(num: 1, den: map.timescale)
        let packet = try Packet()
        var sourceIndex = -1
        var next = 0
        let entries = map.entries
        while next < entries.count, try video.read(into: packet) {
            let p = packet.pointer
            guard Int(p.pointee.stream_index) == videoStream else { continue }
            sourceIndex += 1
            guard entries[next].index == sourceIndex else { continue }
            let entry = entries[next]
            next += 1
            try audio.pump(upTo: entry.dts, in: mapTimeBase, writer: writer)
            p.pointee.pts = entry.pts
            p.pointee.dts = entry.dts
            p.pointee.duration = entry.duration
            p.pointee.stream_index = videoOut.pointee.index
            p.pointee.pos = -1
            av_packet_rescale_ts(p, mapTimeBase, videoOut.pointee.time_base)
            try writer.write(p)
            if next % 64 == 0 { try progress(Double(next) / Double(entries.count)) }
        }
        try audio.finish(writer: writer)
        try writer.finish()
        try progress(1)
    }
}

/// An output movie being written: owns the `AVFormatContext` and its file.
final class MovieWriter {
    let context: UnsafeMutablePointer<AVFormatContext>
    private let display: String
    private var opened = false

    init(path: String, display: String, muxer: String) throws {
        try LibAV.load()
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&made, nil, muxer, path)
        guard result >= 0, let made else { throw ExportError.av(path: display, AVFailure(code: result, operation: "creating the output")) }
        context = made
        self.display = display
        let io = avio_open(&made.pointee.pb, path, AVIO_FLAG_WRITE)
        guard io >= 0 else { throw ExportError.cannotWrite(path: display, reason: AVFailure(code: io, operation: "").message) }
        opened = true
    }

    deinit {
        if opened { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// A new stream with `source`'s codec parameters, metadata (language, handler), disposition
    /// and side data (the display matrix that carries rotation, HDR metadata).
    func addStream(copying source: StreamView, timeBase: AVRational) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try addStream(parameters: source.parameters, timeBase: timeBase,
                                   metadata: source.pointer.pointee.metadata, disposition: source.pointer.pointee.disposition)
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.sample_aspect_ratio = source.pointer.pointee.sample_aspect_ratio
        let src = source.pointer.pointee
        for i in 0..<Int(src.nb_side_data) {
            let entry = src.side_data[i]
            guard let target = av_stream_new_side_data(stream, entry.type, entry.size) else { continue }
            target.update(from: entry.data, count: entry.size)
        }
        return stream
    }

    /// A new stream with `parameters` (an audio encoder's, say), `metadata` (language, handler)
    /// and `disposition`.
    func addStream(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
                   metadata: OpaquePointer?, disposition: Int32) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        let copied = avcodec_parameters_copy(stream.pointee.codecpar, parameters)
        guard copied >= 0 else { throw ExportError.av(path: display, AVFailure(code: copied, operation: "copying codec parameters")) }
        stream.pointee.time_base = timeBase
        stream.pointee.disposition = disposition
        av_dict_copy(&stream.pointee.metadata, metadata, 0)
        return stream
    }

    /// A new stream for `encoder`'s output, with `source`'s metadata and disposition, and its
    /// side data: always the display matrix (rotation); the HDR entries only when `keepHDR`.
    func addStream(encoder: CodecContext, source: StreamView, keepHDR: Bool) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder.pointer)
        guard copied >= 0 else { throw ExportError.av(path: display, AVFailure(code: copied, operation: "setting codec parameters")) }
        stream.pointee.time_base = encoder.pointer.pointee.time_base
        stream.pointee.avg_frame_rate = encoder.pointer.pointee.framerate
        stream.pointee.sample_aspect_ratio = encoder.pointer.pointee.sample_aspect_ratio
        stream.pointee.disposition = source.pointer.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, source.pointer.pointee.metadata, 0)
        av_dict_set(&stream.pointee.metadata, "encoder", nil, 0)
        let src = source.pointer.pointee
        for i in 0..<Int(src.nb_side_data) {
            let entry = src.side_data[i]
            guard entry.type == AV_PKT_DATA_DISPLAYMATRIX || keepHDR else { continue }
            guard let target = av_stream_new_side_data(stream, entry.type, entry.size) else { continue }
            target.update(from: entry.data, count: entry.size)
        }
        return stream
    }

    func writeHeader(videoTimescale: Int32?) throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        let name = String(cString: context.pointee.oformat.pointee.name)
        if name == "mp4" || name == "mov" {
            av_dict_set(&options, "movflags", "+faststart", 0)
            if let videoTimescale { av_dict_set(&options, "video_track_timescale", "\(videoTimescale)", 0) }
        }
        let result = avformat_write_header(context, &options)
        guard result >= 0 else { throw ExportError.av(path: display, AVFailure(code: result, operation: "writing the header")) }
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        let result = av_interleaved_write_frame(context, packet)
        guard result >= 0 else { throw ExportError.cannotWrite(path: display, reason: AVFailure(code: result, operation: "").message) }
    }

    func finish() throws {
        let result = av_write_trailer(context)
        guard result >= 0 else { throw ExportError.av(path: display, AVFailure(code: result, operation: "finishing the file")) }
        avio_closep(&context.pointee.pb)
        opened = false
    }
}
