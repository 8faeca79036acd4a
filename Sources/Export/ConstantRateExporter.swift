import Foundation
public import Composition
public import Project
public import TimePitch
internal import CFFmpeg

/// `slowpoke export --fps N`: AVVideoComposition's `frameDuration` export. The composition is
/// flattened to N frames per second and re-encoded (H.264, HEVC, ProRes 4444 or VP9); output frame k sits at
/// composition time k/N and shows the source frame on screen at the source time mapped back
/// from it (or a blend, or a motion-interpolated frame). Cuts are exact, gaps are black, and the
/// audio follows the same timeline through TimePitch.
public struct ConstantRateExporter {
    public struct Options: Sendable {
        public var fps: Rational
        /// The codec asked for; nil picks H.264, or for a source with an alpha channel the codec
        /// that keeps it in the output's container (ProRes in .mov, VP9 in .mkv and .webm).
        public var codec: VideoCodec?
        /// Overrides for the encoder settings assistant.
        public var crf: Double?
        public var preset: String?
        public var frames: FrameSelection = .nearest

        public init(fps: Rational, codec: VideoCodec? = nil, crf: Double? = nil, preset: String? = nil,
                    frames: FrameSelection = .nearest) {
            self.fps = fps
            self.codec = codec
            self.crf = crf
            self.preset = preset
            self.frames = frames
        }
    }

    public struct Result: Sendable {
        public let output: URL
        public let frames: Int
        public let fps: Rational
        public let duration: Time
        public let audio: AudioHandling
        public let encoder: EncoderSettings
        /// Source frames the decoder produced, out of all the movie has.
        public let decodedFrames: Int
        public let sourceFrames: Int
        /// How interlaced video was made progressive, such as `bwdif, top field first`; nil for
        /// progressive video.
        public let deinterlaced: String?
        /// How the timeline was fitted to the copied audio's frames; nil when it was not.
        public let fit: FrameGridFit.Summary?
    }

    public let document: ProjectDocument
    public let documentURL: URL
    public let output: URL
    public let options: Options
    /// The codec the video is encoded with: the one asked for, or the default for the source.
    public let codec: VideoCodec
    public let settings: TimePitchSettings
    public let force: Bool
    public var audioBitRate = 192_000
    /// Files the output must never be, beyond the movie and the document (a batch's other
    /// movies and its recipe), compared by device and inode.
    public var protectedInputs: [URL] = []
    /// Keeps the timeline exactly as the document has it (see ``TimelineFitting``).
    public var exactTimeline = false

    public init(documentURL: URL, output: URL? = nil, options: Options, settings: TimePitchSettings, force: Bool) throws {
        (document, self.output, codec) = try ExportSession.encodingTarget(of: documentURL, output: output, fps: options.fps,
                                                                          codec: options.codec)
        if codec == .prores && (options.crf != nil || options.preset != nil) {
            let chosen = options.codec == nil ? " (chosen because the video has an alpha channel and the output is .\(self.output.pathExtension))" : ""
            throw ExportError.unsupported("--crf and --preset do not apply to --codec prores\(chosen), whose quality is ProRes 4444's own")
        }
        self.documentURL = documentURL
        self.options = options
        self.settings = settings
        self.force = force
    }

    /// Pictures queued for the encoding thread. A few are enough to keep the decoder busy
    /// while the encoder waits; each 1080p picture held is 3 MB.
    static let picturesAhead = 3

    public func run(progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (String) -> Void = { _ in }) throws -> Result {
        let session = try ExportSession(document: document, documentURL: documentURL, output: output, force: force,
                                        protecting: protectedInputs)
        let (name, videoStream) = (session.movieName, session.videoStream)
        for line in try session.preflight(copyingVideo: false, settings: settings) { warning(line) }

        // One demuxer serves the scan and then the decoding: each open movie holds an index of
        // every sample, which grows with the movie's length. Only passthrough maps packets; the
        // frame plan works from presentation times.
        let input = try InputFormatContext(path: session.movie.path)
        let scan = try VideoScan(input: input, stream: videoStream.index, name: name, keepPackets: false, warning: warning)
        // A truncated movie's timeline stops with its last readable frame (audio included).
        let (videoTrack, fit) = try session.fittedVideoTrack(exact: exactTimeline, settings: settings)
        let track = scan.truncated ? try CompositionTrack(trackID: videoTrack.trackID, mediaType: .video,
                                                          segments: CompositionTrackSegment.cut(videoTrack.segments, atSourceEnd: scan.end))
            : videoTrack
        // Interlaced video offers each field as a picture of its own (see PictureTimes).
        let fieldOrder = Self.fieldOrder(input.stream(videoStream.index).parameters.pointee.field_order)
        let pictures = try PictureTimes(scan: scan, fields: fieldOrder != nil)
        let plan = try FramePlan(track: track, pictures: pictures, fps: options.fps, selection: options.frames)
        guard plan.count > 0 else { throw ExportError.unsupported("the timeline is shorter than one frame at \(options.fps.readable) fps") }

        let segments = track.segments
        // The audio renders on threads of its own while the video is encoded. It starts after the
        // scan: starting before it, as passthrough does, raised a 10-minute export's peak memory
        // by 3 MB (measured), which the memory budget for long movies cannot spare.
        // The muxer waits for audio on the encoding thread; `stop` ends that wait when this
        // thread gives up (an interrupt, an error), since progress is reported only from here.
        let stop = StopSignal()
        let audio = try session.audio(segments: segments, untouched: ExportSession.playsSourceUntouched(segments, settings: settings),
                                      origin: scan.origin, end: track.duration, settings: settings, bitRate: audioBitRate,
                                      waiting: { try stop.check() }, warning: warning)

        let decoder = try FrameDecoder(input: input, stream: videoStream.index, scan: scan,
                                       needed: pictures.framesNeeded(plan.needed, frameCount: scan.frameCount),
                                       name: name, warning: warning)
        let source: any PictureSource = fieldOrder == nil ? decoder : try Deinterlacer(decoder: decoder, frameCount: scan.frameCount)
        let stream = decoder.decoderStream
        let parameters = stream.parameters
        var encoderSettings = try encoding(stream, movieName: name, warning: warning)

        let encoder = try session.start(audio: audio, segments: segments, origin: scan.origin, videoTimescale: nil,
                                        metadata: stream.owner, warning: warning) { writer in
            let encoder = try FrameEncoder(settings: encoderSettings, source: parameters,
                                       sampleAspectRatio: stream.pointer.pointee.sample_aspect_ratio, fps: options.fps,
                                       globalHeader: writer.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0,
                                       progressive: fieldOrder != nil, display: session.destination.destination.path)
            return (try writer.addStream(encoder: encoder.context, source: stream, keepHDR: encoderSettings.tenBit), encoder)
        }

        let pairs = plan.sources.reduce(into: [FlowInterpolator.Pair]()) { pairs, frame in
            if case .interpolate(let a, let b, _) = frame, pairs.last != FlowInterpolator.Pair(a: a, b: b) {
                pairs.append(FlowInterpolator.Pair(a: a, b: b))
            }
        }
        let interpolator = pairs.isEmpty ? nil
            : try FlowInterpolator(source: source, encoder: encoder, display: session.destination.destination.path, pairs: pairs)

        // Encoding, muxing and waiting for audio run on a thread of their own, fed a few
        // pictures ahead: decoding here then overlaps the time this thread would spend blocked
        // in the encoder, waiting for one of its frame threads to finish.
        let encoderTimeBase = encoder.context.pointer.pointee.time_base
        func deliver(_ packet: UnsafeMutablePointer<AVPacket>) throws {
            try session.write(video: packet, in: encoderTimeBase)
        }
        let encoding = BackgroundConsumer<(picture: Frame, index: Int64)>(
            capacity: Self.picturesAhead, name: "slowpoke.encode",
            consume: { try encoder.encode($0.picture, index: $0.index, deliver: deliver) },
            finished: {
                try encoder.encode(nil, index: 0, deliver: deliver)
                try session.finish()
            })

        var held: (index: Int, frame: Frame)?
        var black: Frame?
        var done = 0.0
        do {
            for k in 0..<plan.count {
                let picture: Frame
                switch plan.sources[k] {
                case .gap:
                    if black == nil { black = try encoder.black() }
                    picture = black!
                case .frame(let i):
                    if let held, held.index == i { picture = held.frame } else {
                        picture = try encoder.converted(source.picture(i))
                        held = (i, picture)
                        source.release(before: i)
                    }
                case .blend(let i, let j, let weight):
                    let a = try encoder.converted(source.picture(i))
                    let b = try encoder.converted(source.picture(j))
                    picture = try encoder.blend(a, b, weight: weight)
                    source.release(before: i)
                case .interpolate(let i, let j, let weight):
                    guard let interpolator else { preconditionFailure("an interpolated frame without an interpolator") }
                    picture = try interpolator.frame(i, j, weight: weight)
                }
                try encoding.push((picture, Int64(k)))
                if k % 8 == 0 {
                    done = Double(k) / Double(plan.count)
                    try progress(done)
                }
            }
            try encoding.finish(polling: { try progress(done) })
        } catch {
            stop.raise()
            encoding.cancel()
            throw error
        }
        try session.commit()
        try progress(1)
        if let written = encoder.writtenProfile { encoderSettings.profile = written }
        return Result(output: session.destination.destination, frames: plan.count, fps: options.fps, duration: track.duration,
                      audio: audio.handling, encoder: encoderSettings, decodedFrames: decoder.decodedCount,
                      sourceFrames: scan.frameCount, deinterlaced: fieldOrder.map { "bwdif, \($0)" }, fit: fit)
    }

    /// The encoder settings for the decoded `stream`: the assistant's for the codec, with the
    /// user's overrides; what they lose of the source (alpha, bit depth) goes to `warning`.
    private func encoding(_ stream: StreamView, movieName: String, warning: (String) -> Void) throws -> EncoderSettings {
        let parameters = stream.parameters.pointee
        let depth = SourceAlpha.depth(of: stream), alpha = SourceAlpha.has(stream)
        var settings = EncoderSettings.recommended(codec: codec, width: Int(parameters.width), height: Int(parameters.height),
                                                   fps: options.fps, tenBitSource: depth > 8, alphaSource: alpha)
        if let crf = options.crf { settings.crf = crf }
        if let preset = options.preset { settings.preset = preset }
        settings = try settings.validated()
        let outputDepth = PlaneLayout(av_get_pix_fmt(settings.pixelFormatName)).depth
        for line in FormatLoss.warnings(movieName: movieName, alpha: alpha, depth: depth, settings: settings, outputDepth: outputDepth,
                                        output: output.lastPathComponent, container: output.pathExtension.lowercased()) { warning(line) }
        return settings
    }

    /// How an interlaced stream's fields are ordered, for the summary; nil when it is progressive
    /// (or does not say).
    static func fieldOrder(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_TT, AV_FIELD_TB: "top field first"
        case AV_FIELD_BB, AV_FIELD_BT: "bottom field first"
        default: nil
        }
    }
}
