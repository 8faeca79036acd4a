import Foundation
public import Composition
public import TimePitch
internal import Bitstream
internal import CFFmpeg
import Media

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
        /// Part of the picture instead of all of it: a crop, or a centred zoom.
        public var reframing: Reframing?
        /// With `frames` .interpolate: how much time the motion may take.
        public var quality: InterpolationQuality = .fast
        /// Steadied with libvidstab, after the retime (see ``Stabilization``).
        public var stabilization: Stabilization?

        public init(fps: Rational, codec: VideoCodec? = nil, crf: Double? = nil, preset: String? = nil,
                    frames: FrameSelection = .nearest, reframing: Reframing? = nil, quality: InterpolationQuality = .fast,
                    stabilization: Stabilization? = nil) {
            self.stabilization = stabilization
            self.fps = fps
            self.codec = codec
            self.crf = crf
            self.preset = preset
            self.frames = frames
            self.reframing = reframing
            self.quality = quality
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
        /// What was taken of the picture (`cropped to 640x360 at 320,180`); nil for all of it.
        public let reframed: String?
        /// How the picture was steadied (`stabilized (strength 10, …)`); nil when it was not.
        public let stabilized: String?
    }

    public let source: ExportSource
    public let output: URL
    public let options: Options
    /// The codec the video is encoded with: the one asked for, or the default for the source.
    public let codec: VideoCodec
    public let settings: TimePitchSettings
    public let force: Bool
    public var audioBitRate = 192_000
    /// Keeps the timeline exactly as the document has it (see ``TimelineFitting``).
    public var exactTimeline = false

    /// Prepares to export `source` to `output` with the codec `options` ask for, or by default
    /// the one that keeps the source's alpha channel in the output's container
    /// (``VideoCodec/defaultCodec(alphaSource:container:)``). An output container slowpoke does
    /// not write, or a codec it cannot hold, is refused here, before any work.
    public init(source: ExportSource, output: URL, options: Options, settings: TimePitchSettings, force: Bool) throws {
        _ = try ExportSession.container(of: output)
        let codec = try options.codec ?? VideoCodec.defaultCodec(alphaSource: Self.hasAlpha(source), container: output.pathExtension)
        try codec.check(output: output)
        if options.reframing != nil && options.frames == .interpolate {
            throw ExportError.unsupported("motion interpolation works on the source's whole pictures, so a cropped or zoomed export makes its frames as nearest or blend")
        }
        if codec == .prores && (options.crf != nil || options.preset != nil) {
            let chosen = options.codec == nil ? " (chosen because the video has an alpha channel and the output is .\(output.pathExtension))" : ""
            throw ExportError.encoderSettings([.crf, .preset], "do not apply to ProRes\(chosen), whose quality is ProRes 4444's own")
        }
        self.source = source
        self.output = output
        self.options = options
        self.codec = codec
        self.settings = settings
        self.force = force
    }

    /// Whether the source's video has an alpha channel.
    static func hasAlpha(_ source: ExportSource) throws -> Bool {
        guard let video = source.media.primaryVideo else { return false }
        return SourceAlpha.has(try InputFormatContext(path: source.movie.path).stream(video.index))
    }

    /// Whether an export of `source` with `codec` (nil: the default) writes video WebM holds:
    /// VP9, asked for or chosen for a source with alpha. A WebM movie's default output then
    /// stays WebM (see `OutputNaming.defaultMovieName`).
    public static func encodesWebM(_ source: ExportSource, codec: VideoCodec?) throws -> Bool {
        try codec == .vp9 || (codec == nil && hasAlpha(source))
    }

    /// Pictures queued for the encoding thread. A few are enough to keep the decoder busy
    /// while the encoder waits; each 1080p picture held is 3 MB.
    static let picturesAhead = 3

    public func run(progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (Notice) -> Void = { _ in }) throws -> Result {
        // OpenCV loads on the other core while the movie is probed and scanned.
        if options.frames == .interpolate { FlowLibrary.preload() }
        defer { FlowLibrary.settle() }
        // The warnings of the stages that state only facts.
        let facts: (String) -> Void = { warning(Notice($0)) }
        let session = try ExportSession(source: source, output: output, force: force, settings: settings, audioBitRate: audioBitRate)
        let (name, videoStream) = (session.movieName, session.videoStream)
        // What the export leaves out and what the encoder loses of the source, said before any
        // packet is read (as `export --dry-run --fps` and `info --fps` say it, from the same call).
        for line in try beforeAnyWork(preflight: session.preflight(copyingVideo: false), stream: session.header().stream(videoStream.index)).warnings {
            warning(line)
        }

        // One demuxer serves the scan and then the decoding: each open movie holds an index of
        // every sample, which grows with the movie's length. Only passthrough maps packets; the
        // frame plan works from presentation times.
        let input = try InputFormatContext(path: session.movie.path)
        let scan = try VideoScan(input: input, stream: videoStream.index, name: name, keepPackets: false, warning: facts)
        let (videoTrack, fit) = try session.fittedVideoTrack(exact: exactTimeline, frames: FrameTimes(sorted: scan.presentationTimes))
        session.closeHeader()
        let track = try session.readable(videoTrack, scan: scan)
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
        let audio = try session.audio(segments: segments, origin: scan.origin, end: track.duration,
                                      waiting: { do throws(MediaError) { try stop.check() } catch { throw ExportError(error) } },
                                      warning: facts)

        let decoder = try FrameDecoder(input: input, stream: videoStream.index, scan: scan,
                                       needed: needed(plan, pictures: pictures, frameCount: scan.frameCount),
                                       name: name, warning: facts)
        let deinterlacer = fieldOrder == nil ? nil : try Deinterlacer(decoder: decoder, frameCount: scan.frameCount)
        let (source, stabilized) = try steadied(deinterlacer ?? decoder, session: session, input: input, scan: scan, pictures: pictures,
                                                fieldOrder: fieldOrder, progress: progress, warning: warning)
        let stream = decoder.decoderStream
        let (geometry, reframed) = try reframing(stream)
        let reframer = geometry.map(Reframer.init)
        let parameters = reframed.pointer
        var encoderSettings = try encoding(stream, size: (reframed.pointer.pointee.width, reframed.pointer.pointee.height),
                                           movieName: name, warning: { _ in })

        if encoderSettings.codec == .hevc && encoderSettings.tenBit {
            encoderSettings.staticHDR = try Self.staticHDR(of: stream, plan: plan, source: source)
        }
        let encoder = try session.start(audio: audio, segments: segments, origin: scan.origin, videoTimescale: nil,
                                        metadata: stream.owner, warning: facts) { writer in
            let encoder = try FrameEncoder(settings: encoderSettings, source: parameters,
                                       sampleAspectRatio: stream.pointer.pointee.sample_aspect_ratio, fps: options.fps,
                                       globalHeader: session.container.globalHeader,
                                       progressive: fieldOrder != nil, display: session.destination.destination.path)
            return (try writer.addStream(encoder: encoder.context, source: stream, keepHDR: encoderSettings.tenBit), encoder)
        }

        let interpolator = try Self.interpolator(for: plan, source: source, encoder: encoder,
                                                 display: session.destination.destination.path, quality: options.quality)

        try Self.encode(plan, from: source, decoder: decoder, pictures: pictures, encoder: encoder, reframer: reframer,
                        interpolator: interpolator, session: session, stop: stop, progress: progress)
        try session.commit(progress: progress)
        if let written = encoder.writtenProfile { encoderSettings.profile = written }
        return Result(output: session.destination.destination, frames: plan.count, fps: options.fps, duration: track.duration,
                      audio: audio.handling, encoder: encoderSettings, decodedFrames: decoder.decodedCount,
                      sourceFrames: scan.frameCount,
                      deinterlaced: fieldOrder.map { "bwdif, \($0); \(deinterlacer?.framesCombed ?? 0) of \(deinterlacer?.framesChecked ?? 0) frames combed, the rest kept whole" },
                      fit: fit, reframed: geometry.flatMap { options.reframing?.said($0) }, stabilized: stabilized)
    }

    /// A crop or zoom: its geometry, and the stream's parameters at the reframed picture's size,
    /// which the encoder takes (the stream's own without one).
    private func reframing(_ stream: StreamView) throws -> (Reframing.Geometry?, CodecParameters) {
        let source = stream.parameters.pointee
        let geometry = try options.reframing?.geometry(width: Int(source.width), height: Int(source.height))
        let reframed = try CodecParameters(copying: stream.parameters)
        if let geometry {
            reframed.pointer.pointee.width = Int32(geometry.outputWidth)
            reframed.pointer.pointee.height = Int32(geometry.outputHeight)
        }
        return (geometry, reframed)
    }

    /// Encodes the frames of `plan` and muxes them: encoding, muxing and waiting for audio run
    /// on a thread of their own, fed a few pictures ahead, so decoding here overlaps the time
    /// this thread would spend blocked in the encoder, waiting for one of its frame threads.
    private static func encode(_ plan: FramePlan, from source: any PictureSource, decoder: FrameDecoder, pictures: PictureTimes,
                               encoder: FrameEncoder, reframer: Reframer?, interpolator: FlowInterpolator?, session: ExportSession,
                               stop: StopSignal, progress: @escaping (Double) throws -> Void) throws {
        let encoderTimeBase = encoder.context.pointer.pointee.time_base
        func deliver(_ packet: UnsafeMutablePointer<AVPacket>) throws {
            try session.write(video: packet, in: encoderTimeBase)
        }
        let encoding = BackgroundConsumer<(picture: Frame, index: Int64, hdr: HDR10PlusSEI?)>(
            capacity: Self.picturesAhead, name: "slowpoke.encode",
            consume: { try encoder.encode($0.picture, index: $0.index, dynamicHDR: $0.hdr, deliver: deliver) },
            finished: {
                try encoder.encode(nil, index: 0, deliver: deliver)
                try session.finish()
            })

        do {
            // Each frame carries the HDR10+ message of the source frame it shows, or of the nearer one.
            let dynamicHDR = { (picture: Int) in decoder.dynamicHDR[pictures.frame(of: picture)] }
            try Self.feed(plan, from: source, encoder: encoder, reframer: reframer, interpolator: interpolator, dynamicHDR: dynamicHDR,
                          into: encoding, progress: progress)
        } catch {
            stop.raise()
            encoding.cancel()
            throw error
        }
    }

    /// The flow interpolator for the interpolated frames of `plan`, or nil when it has none.
    private static func interpolator(for plan: FramePlan, source: any PictureSource, encoder: FrameEncoder,
                                     display: String, quality: InterpolationQuality) throws -> FlowInterpolator? {
        let pairs = plan.sources.reduce(into: [FlowInterpolator.Pair]()) { pairs, frame in
            if case .interpolate(let a, let b, _) = frame, pairs.last != FlowInterpolator.Pair(a: a, b: b) {
                pairs.append(FlowInterpolator.Pair(a: a, b: b))
            }
        }
        return pairs.isEmpty ? nil : try FlowInterpolator(source: source, encoder: encoder, display: display, pairs: pairs, quality: quality)
    }

    /// Makes output frame k of `plan` for every k (a source picture converted for the encoder,
    /// a blend, an interpolated frame or black) and pushes it to `encoding`, then waits for the
    /// encoding thread to finish.
    private static func feed(_ plan: FramePlan, from source: any PictureSource, encoder: FrameEncoder, reframer: Reframer?,
                             interpolator: FlowInterpolator?, dynamicHDR: (Int) -> HDR10PlusSEI?,
                             into encoding: BackgroundConsumer<(picture: Frame, index: Int64, hdr: HDR10PlusSEI?)>,
                             progress: @escaping (Double) throws -> Void) throws {
        var held: (index: Int, frame: Frame)?
        var black: Frame?
        var done = 0.0
        // The source picture, reframed when the export takes part of it.
        func sourcePicture(_ i: Int) throws -> Frame {
            let whole = try source.picture(i)
            return try reframer.map { try $0.apply(whole) } ?? whole
        }
        for k in 0..<plan.count {
            let picture: Frame
            // A reversed range asks for its pictures last to first.
            source.backwards = plan.backwards[k]
            switch plan.sources[k] {
            case .gap:
                if black == nil { black = try encoder.black() }
                picture = black!
            case .frame(let i):
                if let held, held.index == i { picture = held.frame } else {
                    picture = try encoder.converted(sourcePicture(i))
                    held = (i, picture)
                    source.release(behind: i)
                }
            case .blend(let i, let j, let weight):
                let a = try encoder.converted(sourcePicture(i))
                let b = try encoder.converted(sourcePicture(j))
                picture = try encoder.blend(a, b, weight: weight)
                source.release(behind: i)
            case .interpolate(let i, let j, let weight):
                guard let interpolator else { preconditionFailure("an interpolated frame without an interpolator") }
                picture = try interpolator.frame(i, j, weight: weight)
            }
            try encoding.push((picture, Int64(k), plan.sources[k].nearest.flatMap(dynamicHDR)))
            if k % 8 == 0 {
                done = Double(k) / Double(plan.count)
                try progress(done)
            }
        }
        try encoding.finish(polling: { try progress(done) })
    }

    /// The encoder settings for the decoded `stream`: the assistant's for the codec, with the
    /// user's overrides; what they lose of the source (alpha, bit depth, PQ, HDR10+) goes to `warning`.
    /// `size` is the encoded picture's (a crop's or zoom's), the stream's own by default.
    func encoding(_ stream: StreamView, size: (width: Int32, height: Int32)? = nil, movieName: String,
                  warning: (Notice) -> Void) throws -> EncoderSettings {
        let parameters = stream.parameters.pointee
        let depth = SourceAlpha.depth(of: stream), alpha = SourceAlpha.has(stream)
        let size = size ?? (parameters.width, parameters.height)
        var settings = EncoderSettings.recommended(codec: codec, width: Int(size.width), height: Int(size.height),
                                                   fps: options.fps, tenBitSource: depth > 8, alphaSource: alpha)
        if let crf = options.crf { settings.crf = crf }
        if let preset = options.preset { settings.preset = preset }
        settings = try settings.validated()
        let outputDepth = PlaneLayout(av_get_pix_fmt(settings.pixelFormatName)).depth
        for line in FormatLoss.warnings(movieName: movieName, alpha: alpha, depth: depth, settings: settings, outputDepth: outputDepth,
                                        output: output.lastPathComponent, container: output.pathExtension.lowercased(),
                                        // HLG is made to play as SDR too, and carries no static metadata.
                                        hdr: parameters.color_trc == AVCOL_TRC_SMPTE2084 ? "PQ" : nil,
                                        dynamicHDR: parameters.codec_id == AV_CODEC_ID_HEVC
                                            && HDR10PlusSEI.inFirstPacket(of: source.movie.path, stream: Int(stream.pointer.pointee.index))) {
            warning(line)
        }
        return settings
    }

    /// x265's parameters for the static HDR metadata (mastering display, content light level)
    /// of the source: the stream's side data, else the first picture's that `plan` shows going
    /// forwards (an HEVC stream carries it in SEI messages, which the decoder gives each frame).
    private static func staticHDR(of stream: StreamView, plan: FramePlan, source: any PictureSource) throws -> [String] {
        var size = 0
        let streamMastering = LibAVFormat.streamGetSideData(stream.pointer, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size).map(UnsafeRawPointer.init)
        let streamLight = LibAVFormat.streamGetSideData(stream.pointer, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size).map(UnsafeRawPointer.init)
        if streamMastering != nil || streamLight != nil {
            return HEVCSpliceEncoder.hdrParameters(mastering: streamMastering, light: streamLight)
        }
        guard let k = plan.sources.indices.first(where: { if case .frame = plan.sources[$0], !plan.backwards[$0] { true } else { false } }),
              case .frame(let i) = plan.sources[k] else { return [] }
        source.backwards = false
        let frame = try source.picture(i).pointer
        let mastering = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA).flatMap { $0.pointee.data.map(UnsafeRawPointer.init) }
        let light = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL).flatMap { $0.pointee.data.map(UnsafeRawPointer.init) }
        return HEVCSpliceEncoder.hdrParameters(mastering: mastering, light: light)
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
