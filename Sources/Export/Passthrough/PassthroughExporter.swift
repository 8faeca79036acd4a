import Foundation
public import Composition
public import TimePitch
internal import Bitstream
internal import CFFmpeg
import Media

/// `slowpoke export` without `--fps`: AVAssetExportSession's passthrough preset. Every video
/// packet is copied unchanged with its timestamps mapped exactly through the timeline; the audio
/// is rendered through TimePitch and encoded as AAC (or copied when the timeline is untouched).
/// A hold (freeze frame) lengthens the held frame's duration, nothing re-encoded; where the
/// timeline re-encodes anyway (it plays backwards, or has a gap), holds and gaps are re-encoded
/// stills (``SmartCut/Still``): the held frame once, or black.
public struct PassthroughExporter {
    public let source: ExportSource
    public let output: URL
    public let settings: TimePitchSettings
    public let force: Bool
    /// AAC bit rate for re-encoded audio.
    public var audioBitRate = 192_000
    /// Keeps the timeline exactly as the document has it, rather than fitted to the copied
    /// audio's frames (see ``TimelineFitting``).
    public var exactTimeline = false
    /// Cuts move to keyframes and nothing is re-encoded (`--keyframe-cuts`), instead of
    /// re-encoding the frames between a cut and the next keyframe (``SmartCut``).
    public var keyframeCuts = false
    /// Checks the written file against the plan before it is put in place (``ExportVerifier``,
    /// `--verify`): a file that differs is kept under a name saying so, and the export throws.
    public var verify = false
    /// Part of the picture, cropped by the stream's cropping window (``PassthroughCrop``).
    public var reframing: Reframing?

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
        /// Frames re-encoded at cuts, how many cuts needed them, and frames copied.
        /// How the timeline was fitted to the copied audio's frames; nil when it was not.
        public let fit: FrameGridFit.Summary?
        public let reencodedFrames: Int
        public let reencodedCuts: Int
        /// Reversed ranges re-encoded backwards (long-GOP video; intra frames are copied).
        public let reencodedReversals: Int
        public let copiedFrames: Int
        /// Of the re-encoded frames, freezes' held frames and gaps' black pictures (one each).
        public var heldFrames = 0, blackFrames = 0
        /// What ``verify`` proved; nil without it.
        public var verification: ExportVerification?
        /// The crop or zoom, as the summary says it; nil for the whole picture.
        public var reframed: String?
    }

    /// Prepares to export `source` to `output`, whose container is checked here, before any work.
    public init(source: ExportSource, output: URL, settings: TimePitchSettings, force: Bool) throws {
        _ = try ExportSession.container(of: output)
        self.source = source
        self.output = output
        self.settings = settings
        self.force = force
    }

    public func run(progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (Notice) -> Void = { _ in }) throws -> Result {
        // The warnings of the stages that state only facts.
        let facts: (String) -> Void = { warning(Notice($0)) }
        try ReversePassthrough.check(source, container: ExportSession.container(of: output), keyframeCuts: keyframeCuts)
        let crop = try reframing.map { try PassthroughCrop($0, source: source) }
        let session = try ExportSession(source: source, output: output, force: force, settings: settings, audioBitRate: audioBitRate)
        let videoTrack = session.videoTrack
        let grid = try session.copiedAudioGrid(exact: exactTimeline)
        for line in try session.preflight(copyingVideo: true) { warning(line) }

        // Rendered audio needs only the timeline and the source time of the first frame. When
        // the timeline removes nothing, no cut can move, so the audio starts rendering on its
        // own threads before the scan, from the first frame of the first GOP; it starts again
        // in the rare case that the scan finds an earlier one.
        var done = 0.0
        func audio(_ segments: [CompositionTrackSegment], origin: Time, end: Time, keepsEveryFrame: Bool) throws -> AudioTracks {
            try session.audio(segments: segments, origin: origin, end: end, keepsEveryFrame: keepsEveryFrame,
                              waiting: { try progress(done) }, warning: facts)
        }
        var early: (audio: AudioTracks, origin: Time, segments: [CompositionTrackSegment])?
        if source.media.primaryAudio != nil, !ExportSession.playsSourceUntouched(videoTrack.segments, settings: settings),
           KeyframeSnapping.removesNothing(videoTrack.segments),
           let origin = try VideoScan.leadingOrigin(movie: session.movie, stream: session.videoStream.index) {
            // Nothing is removed, so no cut can move across a frame: the scan's frames are not needed.
            let fitted = TimelineFitting.fit(videoTrack.segments, grid: grid, exact: exactTimeline, frames: nil,
                                             sourceGrid: try TimelineFitting.sourceGrid(of: source, grid: grid)).0
            early = (try audio(fitted, origin: origin, end: fitted.last?.target.end ?? .zero, keepsEveryFrame: false), origin, fitted)
        }

        // 1-2. The plan: every video packet's timing and the keyframes from a demux-only pass,
        // cuts frame-exact (the frames between a cut and the next keyframe re-encoded) or moved
        // to keyframes, the timeline fitted to the copied audio; the audio follows it.
        let plan = try PassthroughPlan.make(source: source, container: session.container, header: session.header(), settings: settings,
                                            keyframeCuts: keyframeCuts, exact: exactTimeline)
        for line in plan.warnings + [crop?.aligned].compactMap({ $0 }) { warning(line) }
        let (scan, segments, map) = (plan.scan, plan.timeline, plan.map)
        let rendered = try plan.video.smart.flatMap { smart in
            smart.spans.isEmpty ? nil
                : try GOPRenderer(movie: session.movie, stream: session.videoStream.index, scan: scan, spans: smart.spans, name: session.movieName)
        }

        // 3. Audio: copied when the timeline is untouched and every frame is kept, otherwise
        // rendered and encoded on threads of its own while the video is copied (the copy waits
        // for it).
        let audioOutput: AudioTracks
        if let early, early.origin == scan.origin, segments == early.segments {
            audioOutput = early.audio
        } else {
            early = nil
            audioOutput = try audio(segments, origin: scan.origin, end: plan.duration,
                                    keepsEveryFrame: scan.packets.count == map.entries.count - plan.heldFrames - plan.blackFrames)
        }
        session.closeHeader()

        // 4. Interleave the mapped video packets with the audio into the output.
        let rewritten = try copyVideo(map: map, smart: plan.video.smart, rendered: rendered, scan: scan, audio: audioOutput, segments: segments,
                      origin: scan.origin, session: session, crop: crop, warning: warning, progress: { fraction in
            done = fraction
            try progress(fraction)
        })
        let verification = try verify ? session.verify(plan, rewritten: rewritten, crop: crop?.region) : nil
        try session.commit(progress: progress)
        var result = Result(output: session.destination.destination, videoFrames: plan.videoFrames, duration: plan.duration,
                      timescale: plan.timescale, exact: plan.exact, audio: audioOutput.handling, cuts: plan.movedCuts,
                      fit: plan.fit, reencodedFrames: plan.reencodedFrames, reencodedCuts: plan.reencodedCuts,
                      reencodedReversals: plan.reencodedReversals, copiedFrames: plan.copiedFrames)
        (result.verification, result.reframed) = (verification, crop?.said)
        (result.heldFrames, result.blackFrames) = (plan.heldFrames, plan.blackFrames)
        return result
    }

    /// What this export will write (``PassthroughPlan``), worked out without writing anything:
    /// what `info` shows. Throws what the export would refuse before any work.
    public func plan() throws -> PassthroughPlan {
        let container = try ExportSession.container(of: output)
        try ReversePassthrough.check(source, container: container, keyframeCuts: keyframeCuts)
        guard source.media.primaryVideo != nil else {
            throw ExportError.unsupported("\(source.name) has no video")
        }
        let crop = try reframing.map { try PassthroughCrop($0, source: source) }
        let header = try InputFormatContext(path: source.movie.path)
        var plan = try PassthroughPlan.make(source: source, container: container, header: header, settings: settings,
                                            keyframeCuts: keyframeCuts, exact: exactTimeline)
        (plan.reframed, plan.warnings) = (crop?.said, plan.warnings + [crop?.aligned].compactMap { $0 })
        return plan
    }

    // MARK: Cuts

    /// How the video is made: the timeline as it is, with a ``SmartCut`` and its re-encoded
    /// frames, or with its cuts moved to keyframes (``KeyframeSnapping``).
    struct VideoPlan {
        let segments: [CompositionTrackSegment]
        let snapped: (cuts: [KeyframeSnapping.Cut], rounded: Bool)
        let smart: SmartCut?
        /// How the timeline was fitted to the copied audio's frames (``TimelineFitting``).
        let fit: FrameGridFit.Summary?
        /// Why the cuts move to keyframes, when they do.
        let keyframeCutsBecause: String?
    }

    /// What a ``VideoPlan`` is made from: the source, its scan, the container and the options.
    struct Planner {
        let source: ExportSource
        let container: Container
        let header: InputFormatContext
        let scan: VideoScan
        let grid: FrameGrid?
        /// Where the source's audio packets lie (``SourceGrid``), when their grid changes.
        let sourceGrid: SourceGrid?
        let keyframeCuts: Bool
        let exact: Bool

        /// Plans frame-exact cuts where the stream and container allow them (and `keyframeCuts`
        /// does not ask otherwise), else snaps the cuts to keyframes, saying why when it matters.
        func plan(_ readable: [CompositionTrackSegment], warning: (Notice) -> Void) throws -> VideoPlan {
            let name = source.name, stream = source.media.primaryVideo!.index
            let refusal = keyframeCuts ? nil : SmartCut.refusal(container: container, movie: source.movie, stream: stream,
                                                                 name: name, scan: scan, segments: readable, opened: header)
            let frames = FrameTimes(sorted: scan.presentationTimes)
            // A reversed range is played by the frame-exact plan (copied intra frames, or long-GOP
            // ones re-encoded backwards), never by moving cuts to keyframes.
            let reversed = readable.contains(where: \.isReversed)
            guard reversed || (!keyframeCuts && refusal == nil) else {
                if let refusal, !KeyframeSnapping.removesNothing(readable) {
                    warning(Notice("passthrough cuts \(name) at keyframes, not frame-exact, because \(refusal)",
                                   aside: "frame-exact cuts re-encode the frames after a cut in 8-bit 4:2:0 progressive H.264 or 8/10-bit 4:2:0 HEVC (Main, Main 10), into .mp4, .mov or .mkv",
                                   remedies: [Remedy(.constantRate, "to cut exactly")]))
                }
                let snapped = try PassthroughExporter.snap(readable, scan: scan, hides: container.canHideFrames)
                // Fitted to the copied audio's frames once the cuts are at keyframes.
                let (segments, fit) = try TimelineFitting.fitSnapped(snapped.segments, grid: grid, exact: exact, points: scan.cutPoints,
                                                                     carriesHidden: container.canHideFrames, frames: frames,
                                                                     sourceGrid: sourceGrid)
                return VideoPlan(segments: segments, snapped: (snapped.cuts, snapped.rounded), smart: nil, fit: fit,
                                 keyframeCutsBecause: KeyframeSnapping.removesNothing(readable) ? nil : refusal ?? "the export asks for keyframe cuts")
            }
            // Cuts are frame-exact wherever the fit puts them.
            let (fitted, fit) = TimelineFitting.fit(readable, grid: grid, exact: exact, frames: frames, sourceGrid: sourceGrid)
            // Holds and gaps are re-encoded pictures wherever frames can be (``SmartCut/Still``).
            let smart = SmartCut(scan: scan, segments: fitted, stills: refusal == nil && !keyframeCuts)
            if let refusal, !smart.spans.isEmpty {
                throw ReversePassthrough.refusal(fitted, name: name, why: refusal)
            }
            for span in smart.spansPastKeyframes(scan) {
                let why = scan.openGOPRefusal.map { "; they cannot be rewritten as IDR pictures because \($0)" } ?? ""
                warning(Notice("\(span.count) frames of \(name) from source \(scan.presentationTimes[span.lowerBound].readable) are re-encoded: its keyframes after that are open-GOP recovery points, which refer to the pictures before them, so copying resumes only at the next IDR picture\(why)",
                               remedies: [Remedy(.keyframeCuts, "to re-encode nothing and cut at keyframes instead")]))
            }
            return VideoPlan(segments: fitted, snapped: ([], false), smart: smart, fit: fit, keyframeCutsBecause: nil)
        }
    }

    /// The timeline with its cuts moved to where the copied frames can be decoded. A timeline
    /// whose exact times outgrow exact arithmetic (stacked ramps and cuts) is rounded to the
    /// source's ticks first, and the export says its times are rounded (`rounded`).
    static func snap(_ readable: [CompositionTrackSegment], scan: VideoScan, hides: Bool) throws
        -> (segments: [CompositionTrackSegment], cuts: [KeyframeSnapping.Cut], rounded: Bool) {
        do {
            let (segments, cuts) = try KeyframeSnapping.snap(readable, points: scan.cutPoints, carriesHidden: hides)
            return (segments, cuts, false)
        } catch CompositionError.overflow {
            let (segments, cuts) = try KeyframeSnapping.snap(CompositionTrackSegment.rounded(readable, to: scan.timescale),
                                                             points: scan.cutPoints, carriesHidden: hides)
            return (segments, cuts, true)
        }
    }

    // MARK: Muxing

    /// Copies the video packets that `map` keeps, with its timestamps, into the session.
    private func copyVideo(map: PacketMap, smart: SmartCut?, rendered: GOPRenderer?, scan: VideoScan, audio: AudioTracks,
                           segments: [CompositionTrackSegment], origin: Time, session: ExportSession, crop: PassthroughCrop?, warning: (Notice) -> Void,
                           progress: (Double) throws -> Void) throws -> Set<Int> {
        let videoStream = session.videoStream.index
        let video = try InputFormatContext(path: session.movie.path)
        video.readOnly(stream: videoStream)
        let entries = map.entries
        let parameters = video.stream(videoStream).parameters.pointee
        let record = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []
        // H.264 open GOPs: recovery points copied after re-encoded frames are rewritten as IDR
        // pictures (``OpenGOPRewriter``); the record then allows frame_num gaps.
        let resumed = smart.flatMap { smart in
            OpenGOPRewriter.plan(recoveryPoints: scan.recoveryPoints, record: record, rendered: rendered.flatMap { ParameterSets(avcC: $0.record) },
                                 copies: entries.map { entry in if case .copy(let i) = smart.items[entry.index] { i } else { nil } })
        }
        try session.start(audio: audio, segments: segments, origin: origin, videoTimescale: map.timescale,
                          metadata: video, warning: { warning(Notice($0)) }) { writer in
            let stream = try writer.addStream(copying: video.stream(videoStream), timeBase: AVRational(num: 1, den: map.timescale))
            Self.describe(stream, resumed: resumed, rendered: rendered, session: session, warning: warning)
            try crop?.describe(stream, setExtradata: Self.setExtradata)
            return (stream, ())
        }

        let mapTimeBase = AVRational(num: 1, den: map.timescale)
        // Packets in the order the timeline plays them: read on for forward runs, a block at a
        // time backwards for reversed runs of intra frames.
        let reader = try PacketReader(input: video, stream: videoStream, ticks: scan.decodeTicks, name: session.movieName)
        // HEVC: copying that resumes after re-encoded frames, or after a jump in the source,
        // restores the stream's own parameter sets (``HEVCParameterSets/resumed(_:)``).
        let format = rendered?.format
        var afterEncoded = false, previous: Int?
        // Copied packets whose bytes are changed (output decode positions), for --verify.
        var changedCopies: Set<Int> = []
        // H.264: a re-encoded IDR picture's id differs from the IDR picture's before it.
        let separation = rendered.flatMap { IDRSeparation(record: $0.record) }
        var lastIDR: Int?
        for (n, entry) in entries.enumerated() {
            if var sample = try encodedSample(entry) {
                if sample.idr, let separation { (sample.bytes, lastIDR) = try separation.separated(sample.bytes, previous: lastIDR) } else { lastIDR = nil }
                resumed?.rewriter.encoded(sample.bytes, idr: sample.idr)
                try writeEncoded((try crop?.sample(sample.bytes) ?? sample.bytes, sample.idr), entry: entry, session: session, timeBase: mapTimeBase)
                afterEncoded = true
            } else if let source = sourceItem(entry) {
                let read = try reader.packet(at: source)
                let p = read.pointer.pointee
                let bytes = UnsafeBufferPointer(start: p.data, count: Int(p.size))
                lastIDR = p.flags & AV_PKT_FLAG_KEY != 0 ? separation?.id(bytes) : nil
                let resumes = p.flags & AV_PKT_FLAG_KEY != 0 && (afterEncoded || previous.map { source != $0 + 1 } ?? false)
                (afterEncoded, previous) = (false, source)
                if let resumed, let rewritten = try Self.rewrite(bytes, n: n, resumed, name: session.movieName) {
                    // A recovery point made an IDR picture, or a picture renumbered after one.
                    changedCopies.insert(n)
                    try writeEncoded((try crop?.sample(rewritten) ?? rewritten, p.flags & AV_PKT_FLAG_KEY != 0), entry: entry, session: session, timeBase: mapTimeBase)
                } else {
                    // The stream's own sets restored, and the cropping window in every SPS.
                    let restored = resumes ? format?.resumed(bytes) : nil
                    let changed = try restored.map { try crop?.sample($0) ?? $0 } ?? crop?.sample(bytes)
                    if changed != nil { changedCopies.insert(n) }
                    try Self.write(changed.map { try Self.packet($0, flags: p.flags) } ?? read, entry: entry, session: session, timeBase: mapTimeBase)
                }
            }
            if (n + 1) % 64 == 0 { try progress(Double(n + 1) / Double(entries.count)) }
        }
        try session.finish()
        try progress(1)
        return changedCopies

        /// The source packet an entry copies, or nil for a re-encoded frame.
        func sourceItem(_ entry: PacketMap.Entry) -> Int? {
            guard let smart else { return entry.index }
            if case .copy(let i) = smart.items[entry.index] { return i }
            return nil
        }
        /// A re-encoded frame's sample, and whether it starts its span (an IDR picture).
        func encodedSample(_ entry: PacketMap.Entry) throws -> (bytes: [UInt8], idr: Bool)? {
            guard let smart, let rendered,
                  case .encoded(let span, let frame) = smart.items[entry.index] else { return nil }
            return (try rendered.samples.sample(span: span, frame: frame), frame == 0)
        }
    }

    /// The output stream's configuration record: with the re-encoded frames' parameter sets
    /// (H.264: beside the stream's, frame_num gaps allowed when open GOPs are resumed; HEVC: in
    /// band, so mp4 and mov get the `hev1` sample entry, which the export says).
    private static func describe(_ stream: UnsafeMutablePointer<AVStream>, resumed: OpenGOPRewriter.Resumed?, rendered: GOPRenderer?,
                                 session: ExportSession, warning: (Notice) -> Void) {
        if let resumed {
            setExtradata(resumed.sets.avcC, of: stream)
        } else if let rendered {
            setExtradata(rendered.record, of: stream)
        }
        if let rendered, rendered.format.setsInBand && session.container.isQuickTime {
            // In-band parameter sets need the sample entry that allows them.
            // The plan says so before any work (``PassthroughPlan/hev1Warning(name:)``).
            stream.pointee.codecpar.pointee.codec_tag = hev1
        }
    }

    /// Copied sample `n` as ``OpenGOPRewriter`` rewrites it (nil: unchanged); a slice the scan
    /// did not read and the rewriting cannot follow stops the export with a reason.
    private static func rewrite(_ bytes: UnsafeBufferPointer<UInt8>, n: Int, _ resumed: OpenGOPRewriter.Resumed, name: String) throws -> [UInt8]? {
        do {
            return try resumed.rewriter.copied(bytes, continuing: resumed.continuing(n))
        } catch let why as SliceHeader.Unsupported {
            throw ExportError.unavailable(Notice("\(name): a picture copied after an open-GOP recovery point cannot be rewritten, because \(why)",
                                                 remedies: [Remedy(.keyframeCuts)]))
        }
    }

    /// Writes copied `packet` with `entry`'s timestamps.
    private static func write(_ packet: Packet, entry: PacketMap.Entry, session: ExportSession, timeBase: AVRational) throws {
        let p = packet.pointer
        p.pointee.pts = entry.pts
        p.pointee.dts = entry.dts
        p.pointee.duration = entry.duration
        try session.write(video: p, in: timeBase)
    }

    /// Writes a re-encoded frame with `entry`'s timestamps; the first of its span is an IDR.
    private func writeEncoded(_ sample: (bytes: [UInt8], idr: Bool), entry: PacketMap.Entry, session: ExportSession, timeBase: AVRational) throws {
        let packet = try Packet()
        let p = packet.pointer
        let bytes = sample.bytes
        guard LibAVCodec.newPacket(p, Int32(bytes.count)) >= 0 else { throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a packet")) }
        bytes.withUnsafeBufferPointer { p.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        if sample.idr { p.pointee.flags |= AV_PKT_FLAG_KEY }
        p.pointee.pts = entry.pts
        p.pointee.dts = entry.dts
        p.pointee.duration = entry.duration
        try session.write(video: p, in: timeBase)
    }

    /// HEVC's sample entry for parameter sets in the stream too.
    static let hev1 = CodecTag.fourCC("hev1")

    /// A packet of `bytes` with `flags` (a copied video packet's timestamps are set anew).
    private static func packet(_ bytes: [UInt8], flags: Int32) throws -> Packet {
        let copy = try Packet()
        guard LibAVCodec.newPacket(copy.pointer, Int32(bytes.count)) >= 0 else {
            throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a packet"))
        }
        copy.pointer.pointee.flags = flags
        bytes.withUnsafeBufferPointer { copy.pointer.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        return copy
    }

    /// Replaces the output stream's extradata (the copied avcC) with `record`.
    private static func setExtradata(_ record: [UInt8], of stream: UnsafeMutablePointer<AVStream>) {
        let par = stream.pointee.codecpar!
        av_freep(&par.pointee.extradata)
        let padded = record.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let buffer = av_mallocz(padded)?.assumingMemoryBound(to: UInt8.self) else { return }
        record.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: record.count) }
        par.pointee.extradata = buffer
        par.pointee.extradata_size = Int32(record.count)
    }
}
