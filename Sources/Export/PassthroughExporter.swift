import Foundation
public import Composition
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
        let document = try DocumentStore.read(documentURL)
        let output = output ?? Self.defaultOutput(for: document, at: documentURL)
        try ExportError.requireExtension(of: output, in: Self.extensions, "slowpoke exports")
        self.document = document
        self.documentURL = documentURL
        self.output = output
        self.settings = settings
        self.force = force
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

        // 1. Every video packet's timing, and the keyframes, from a demux-only pass.
        let scan = try scanVideo(movie: movie, stream: videoStream.index, warning: warning)

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
        let ext = output.pathExtension.lowercased()
        let muxer = Self.muxers[ext]!
        let map = try PacketMap(packets: scan.packets, track: timeline, preferred: scan.timescale,
                                fixedTimescale: muxer == "matroska" ? 1000 : nil)

        // 3. Audio: copied when the timeline is untouched, otherwise rendered and encoded.
        let audioStream = document.media.primaryAudio
        let untouched = segments.count == 1 && segments[0].rate == .one && segments[0].target.start == .zero
            && segments[0].source?.start == .zero && settings.semitones == 0
            && scan.packets.count == map.entries.count
        var audio: AudioHandling = .none
        var scratch: AtomicOutput?
        if let audioStream {
            if untouched {
                audio = .copied
            } else {
                audio = .rendered
                let folder = destination.destination.deletingLastPathComponent()
                let temp = try AtomicOutput(destination: folder.appendingPathComponent(".\(output.lastPathComponent).audio-\(getpid()).m4a"), force: true)
                scratch = temp
                try renderAudio(movie: movie, stream: audioStream, segments: segments, origin: scan.origin, into: temp,
                                progress: { try progress(0.8 * $0) }, warning: warning)
            }
        }
        defer { scratch?.discard() }

        // 4. Interleave the mapped video packets with the audio into the output.
        try mux(movie: movie, videoStream: videoStream.index, audioStream: audioStream?.index, audio: audio,
                scratch: scratch?.temporary, map: map, origin: scan.origin, end: timeline.duration, muxer: muxer,
                into: destination, warning: warning,
                progress: { try progress((audio == .rendered ? 0.8 : 0) + (audio == .rendered ? 0.2 : 1) * $0) })
        try destination.commit()
        try progress(1)
        return Result(output: destination.destination, videoFrames: map.entries.count, duration: timeline.duration,
                      timescale: map.timescale, exact: map.exact, audio: audio,
                      cuts: cuts.map { ($0.requested, $0.actual) })
    }

    // MARK: Video scan

    struct Scan {
        var packets: [PacketMap.SourcePacket] = []
        var keyframes: [Time] = []
        /// The first presented frame's timestamp, in stream ticks: source time 0.
        var origin: Time = .zero
        var timescale: Int32 = 1
    }

    private func scanVideo(movie: URL, stream index: Int, warning: (String) -> Void) throws -> Scan {
        let input = try InputFormatContext(path: movie.path)
        for other in 0..<input.streamCount where other != index { input.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
        let tb = input.stream(index).pointer.pointee.time_base
        let packet = try Packet()
        var raw: [(pts: Int64, dts: Int64, duration: Int64, key: Bool)] = []
        var lastDts = Int64.min
        while true {
            let more: Bool
            do { more = try input.read(into: packet) } catch {
                warning("stopped reading \(document.movie.path) at a damaged packet after \(raw.count) frames: \(error)")
                break
            }
            guard more else { break }
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == index else { continue }
            if p.flags & AV_PKT_FLAG_CORRUPT != 0 {
                warning("video packet \(raw.count) of \(document.movie.path) is marked corrupt; it is copied as it is")
            }
            let pts = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            var dts = p.dts != sp_av_nopts_value() ? p.dts : pts
            if dts <= lastDts { dts = lastDts + 1 }
            lastDts = dts
            raw.append((pts, dts, max(p.duration, 0), p.flags & AV_PKT_FLAG_KEY != 0))
        }
        let declared = input.stream(index).pointer.pointee.nb_frames
        if declared > raw.count {
            warning("\(document.movie.path) lists \(declared) video frames but only \(raw.count) could be read; it is truncated or damaged, and the export stops where the readable video ends")
        }
        guard let firstPts = raw.map(\.pts).min() else {
            throw ExportError.notMedia(path: movie.path, reason: "its video stream has no frames")
        }
        let base = try Rational(Int64(tb.num), Int64(tb.den))
        func seconds(_ ticks: Int64) throws -> Time { try Time(value: ticks - firstPts, timescale: 1).multiplied(by: base) }
        var scan = Scan()
        scan.origin = try Time(value: firstPts, timescale: 1).multiplied(by: base)
        scan.timescale = tb.den / max(1, tb.num)
        // A frame without a duration lasts until the next one.
        let sortedPts = raw.map(\.pts).sorted()
        for (i, r) in raw.enumerated() {
            var duration = r.duration
            if duration == 0 {
                let next = sortedPts.first { $0 > r.pts }
                duration = next.map { $0 - r.pts } ?? (i > 0 ? raw[i - 1].duration : 1)
            }
            scan.packets.append(PacketMap.SourcePacket(pts: try seconds(r.pts), dts: try seconds(r.dts),
                                                       duration: try seconds(firstPts + duration)))
            if r.key { scan.keyframes.append(try seconds(r.pts)) }
        }
        scan.keyframes.sort()
        return scan
    }

    // MARK: Audio

    private func renderAudio(movie: URL, stream: StreamInfo, segments: [CompositionTrackSegment], origin: Time,
                             into temp: AtomicOutput, progress: @escaping (Double) throws -> Void,
                             warning: @escaping (String) -> Void) throws {
        let reader = try AudioFileReader(url: movie, stream: stream.index)
        reader.onWarning = warning
        let writer = try AudioFileWriter(output: temp, format: reader.format, depth: .aac(bitRate: audioBitRate))
        let renderer = TimelineRenderer(format: reader.format, settings: settings)
        let sourceOrigin = try origin.rescaled(to: Int32(reader.format.sampleRate)).value
        try renderer.render(segments, from: reader, sourceOrigin: sourceOrigin, to: { samples, count in
            try writer.write(samples, count: count)
        }, progress: progress)
        try writer.finish(commit: false)
    }

    // MARK: Muxing

    private func mux(movie: URL, videoStream: Int, audioStream: Int?, audio: AudioHandling, scratch: URL?,
                     map: PacketMap, origin: Time, end: Time, muxer: String, into destination: AtomicOutput,
                     warning: (String) -> Void, progress: (Double) throws -> Void) throws {
        let video = try InputFormatContext(path: movie.path)
        for other in 0..<video.streamCount where other != videoStream { video.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
        // Audio comes from the scratch file, or (copied) from the movie itself.
        var audioInput: InputFormatContext?
        var audioIndex = 0
        switch audio {
        case .rendered:
            audioInput = try InputFormatContext(path: scratch!.path)
            audioIndex = 0
        case .copied:
            let input = try InputFormatContext(path: movie.path)
            for other in 0..<input.streamCount where other != audioStream! { input.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
            audioInput = input
            audioIndex = audioStream!
        case .none:
            break
        }

        let writer = try MovieWriter(path: destination.temporary.path, display: destination.destination.path, muxer: muxer)
        let videoIn = video.stream(videoStream)
        let videoOut = try writer.addStream(copying: videoIn, timeBase: AVRational(num: 1, den: map.timescale))
        var audioOut: UnsafeMutablePointer<AVStream>?
        if let audioInput {
            let stream = try writer.addStream(copying: audioInput.stream(audioIndex), timeBase: audioInput.stream(audioIndex).pointer.pointee.time_base)
            // Language and handler come from the movie's audio, even when the samples are new.
            if audio == .rendered, let audioStream {
                av_dict_copy(&stream.pointee.metadata, video.stream(audioStream).pointer.pointee.metadata, 0)
            }
            audioOut = stream
        }
        av_dict_copy(&writer.context.pointee.metadata, video.pointer.pointee.metadata, 0)
        try writer.writeHeader(videoTimescale: muxer == "matroska" ? nil : map.timescale)

        let mapTimeBase = AVRational(num: 1, den: map.timescale)
        let packet = try Packet()
        let audioPacket = try Packet()
        var haveAudio = false
        var audioDone = audioInput == nil
        let audioTimeBase = audioInput.map { $0.stream(audioIndex).pointer.pointee.time_base } ?? AVRational(num: 1, den: 1)
        // In copy mode the movie's audio shifts by the same origin as its video.
        let audioTicksPerSecond = audioTimeBase.den / max(1, audioTimeBase.num)
        let audioShift = audio == .copied ? try origin.rescaled(to: audioTicksPerSecond).value : 0
        // Copied audio stops where the timeline does.
        let audioEnd = try end.rescaled(to: audioTicksPerSecond, rounding: .up).value

        func pumpAudio(upTo dts: Int64, in base: AVRational) throws {
            while !audioDone {
                if !haveAudio {
                    guard let audioInput else { audioDone = true; return }
                    var got = false
                    while !got {
                        guard try audioInput.read(into: audioPacket) else { audioDone = true; return }
                        got = Int(audioPacket.pointer.pointee.stream_index) == audioIndex
                    }
                    haveAudio = true
                }
                let p = audioPacket.pointer
                if audio == .copied {
                    if p.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                        let at = Double(p.pointee.pts) / Double(audioTicksPerSecond)
                        warning("skipped a damaged audio packet at \(String(format: "%.3f", at)) s")
                        haveAudio = false
                        continue
                    }
                    if p.pointee.pts != sp_av_nopts_value() && p.pointee.pts - audioShift >= audioEnd {
                        audioDone = true
                        return
                    }
                }
                // Matroska cannot hold the AAC priming packet's negative time and would delay
                // every stream to make room, moving the video half a frame; the packet decodes
                // only to priming, which the decoder discards anyway, so it is left out.
                if muxer == "matroska", p.pointee.pts != sp_av_nopts_value(), p.pointee.pts - audioShift + p.pointee.duration <= 0 {
                    haveAudio = false
                    continue
                }
                let adts = p.pointee.dts != sp_av_nopts_value() ? p.pointee.dts : p.pointee.pts
                if av_compare_ts(adts - audioShift, audioTimeBase, dts, base) > 0 { return }
                if p.pointee.pts != sp_av_nopts_value() { p.pointee.pts -= audioShift }
                if p.pointee.dts != sp_av_nopts_value() { p.pointee.dts -= audioShift }
                p.pointee.stream_index = audioOut!.pointee.index
                av_packet_rescale_ts(p, audioTimeBase, audioOut!.pointee.time_base)
                p.pointee.pos = -1
                try writer.write(p)
                haveAudio = false
            }
        }

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
            try pumpAudio(upTo: entry.dts, in: mapTimeBase)
            p.pointee.pts = entry.pts
            p.pointee.dts = entry.dts
            p.pointee.duration = entry.duration
            p.pointee.stream_index = videoOut.pointee.index
            p.pointee.pos = -1
            av_packet_rescale_ts(p, mapTimeBase, videoOut.pointee.time_base)
            try writer.write(p)
            if next % 64 == 0 { try progress(Double(next) / Double(entries.count)) }
        }
        try pumpAudio(upTo: Int64.max / 4, in: AVRational(num: 1, den: 1))
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
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&made, nil, muxer, path)
        guard result >= 0, let made else { throw ExportError.av(path: display, AVFailure(code: result, operation: "creating the output")) }
        context = made
        self.display = display
        LibAV.configure()
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
        guard let stream = avformat_new_stream(context, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        let copied = avcodec_parameters_copy(stream.pointee.codecpar, source.parameters)
        guard copied >= 0 else { throw ExportError.av(path: display, AVFailure(code: copied, operation: "copying codec parameters")) }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = timeBase
        stream.pointee.sample_aspect_ratio = source.pointer.pointee.sample_aspect_ratio
        stream.pointee.disposition = source.pointer.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, source.pointer.pointee.metadata, 0)
        let src = source.pointer.pointee
        for i in 0..<Int(src.nb_side_data) {
            let entry = src.side_data[i]
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
