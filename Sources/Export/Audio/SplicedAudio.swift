import Foundation
import Composition
import TimePitch
internal import CFFmpeg
import Media

/// An audio track exported by smart audio: the source's own packets where the timeline leaves
/// the audio unchanged, and the edited stretches rendered through TimePitch and encoded with
/// the source's codec and parameters, spliced in between (see ``AudioSplicePlan``).
///
/// Workers render and encode the edited stretches while the muxer copies packets: up to one a
/// core (at most ``workerLimit``), each with its own reader, renderer and encoder, taking the
/// stretches in turn, each stretch into a queue of its own; packets come out in output order,
/// in samples (1/sample rate). (An mp4 often encodes two stretches: the edit, and the audio
/// before it that an edit's odd length puts off the copied packets' frame grid.)
///
/// `@unchecked Sendable`: each worker owns its reader, renderer and encoders once started; the
/// queues are locked and the plan is immutable.
final class SplicedAudio: @unchecked Sendable {
    enum Item {
        case packet(Packet)
        /// The encoded piece is complete.
        case pieceEnd
    }

    let plan: AudioSplicePlan
    /// The timeline's length in samples.
    let total: Int64
    let timeBase: AVRational
    private let scan: [AudioSplicePlan.Packet]
    /// The codec's frame length in samples (1 for PCM).
    let frame: Int
    /// The movie, opened to read the copied packets (and the stream's parameters).
    /// The source's demuxer, until the output stream is made from its stream (see
    /// ``withSourceStream(_:)``) when the packets are read from ``samples`` instead.
    private var input: InputFormatContext?
    /// The config the output states for ADTS frames (a transport stream's AAC), whose copied
    /// frames lose their headers; nil for a source that states its own.
    let audioSpecificConfig: [UInt8]?
    /// The source file and where its packets lie, when its index says (an mp4).
    private let samples: (file: SampleFile, positions: [Int64], sizes: [Int32], discarded: Set<Int>)?
    private let url: URL
    let stream: Int
    private let settings: TimePitchSettings
    /// The first worker's reader, opened to learn the format; the worker takes it, and it is
    /// released when that worker ends (each open movie holds an index of every sample).
    private var firstReader: AudioFileReader?
    private let sampleRate: Int
    private let segments: [CompositionTrackSegment]
    private let sourceOrigin: Int64
    private let make: () throws -> AudioEncoder
    /// The encoder opened to check the stream parameters, unused: the first stretch takes it
    /// (opening an AAC encoder builds its tables, about 10 ms).
    private var spare: AudioEncoder?
    /// The encoder's delay in samples (AAC: 1024), the same for every span.
    private let delay: Int64
    /// An encoded stretch of output samples, and the queue its packets go to.
    private struct Stretch {
        let output: Range<Int64>
        let bridge: AudioSplicePlan.Bridge?
        let queue = BlockingQueue<Item>(capacity: 4096)
    }

    /// The encoded stretches, in output order.
    private let stretches: [Stretch]
    /// The most workers that render and encode at once.
    static let workerLimit = 4
    /// Seconds of encoded audio that make another worker worth its start-up (it opens the movie
    /// again, and libavformat decodes a few video frames to probe it: 40 ms of 1080p60).
    static let secondsAWorker = 8
    private let workers = DispatchGroup()
    /// The muxer's place: the piece it is in, the encoded stretches it has finished, and the
    /// next source packet's index.
    private var piece = 0
    private var stretch = 0
    private var sourceIndex = 0
    private var started = false
    private let lock = NSLock()
    private var warnings: [String] = []

    /// Plans audio `stream` of `url` for a timeline of `segments` ending at `end`, with
    /// `origin` the source time of timeline source time 0, encoded as `choice` says (the
    /// source's own codec) at the source's bit rate; nil when nothing can be copied or the
    /// encoder would not write the source's stream parameters (the caller renders the whole
    /// track then).
    init?(movie url: URL, stream: Int, segments: [CompositionTrackSegment], settings: TimePitchSettings,
          choice: AudioCodecChoice, origin: Time, end: Time, container: Container, display: String) throws {
        guard let scanned = try AudioPacketScan.scanned(path: url.path, stream: stream) else { return nil }
        let input = try InputFormatContext(path: url.path)
        input.readOnly(stream: stream)
        self.input = input
        samples = try scanned.locations.map { (try SampleFile(path: url.path), $0.positions, $0.sizes, $0.discarded) }
        let reader = try AudioFileReader(url: url, stream: stream)
        let source = input.stream(stream).parameters.pointee
        let format = reader.format
        // The source's bit rate: as its container states it (an mp4's is an average too), else
        // as its packets average; at least 48 kb/s a channel either way: a film of silence
        // averages next to nothing (the demo clip's states 12 kb/s), and the edited stretch may
        // be its one loud moment, whose attacks at 12 kb/s came out 40 % louder with pre-echo.
        let measured = source.bit_rate > 0 ? Int(source.bit_rate) : scanned.bitRate
        let bitRate = measured.map { max($0, 48_000 * Int(source.ch_layout.nb_channels)) } ?? choice.bitRate
        let globalHeader = container.globalHeader
        let layout = source.ch_layout
        make = {
            try AudioEncoder(format: format, codecID: choice.codec, sampleFormat: choice.sampleFormat, bitRate: bitRate,
                             bitsPerRawSample: choice.bitsPerRawSample, layout: layout, globalHeader: globalHeader, display: display)
        }
        // The copied packets keep the source's stream parameters: the encoder must agree on
        // them (for AAC, the AudioSpecificConfig's object type, sample rate and channels).
        let probe = try make()
        delay = Int64(probe.context.pointer.pointee.initial_padding)
        let made = probe.context.pointer.pointee
        let ours = Self.bytes(made.extradata, made.extradata_size)
        var theirs = Self.bytes(source.extradata, source.extradata_size)
        // A transport stream's AAC states its config in every frame's ADTS header, not once;
        // one whose format changes mid-stream has no one config, and is encoded whole.
        if theirs.isEmpty, source.codec_id == AV_CODEC_ID_AAC, reader.formatChanges == nil, let header = try Self.firstADTSHeader(url.path, stream: stream), header.extraBlocks == 0 {
            theirs = header.audioSpecificConfig
            audioSpecificConfig = theirs
        } else {
            audioSpecificConfig = nil
        }
        guard made.codec_id == source.codec_id, ours.prefix(2) == theirs.prefix(2) else { return nil }
        spare = probe
        let renderer = TimelineRenderer(format: format, settings: settings)
        sourceOrigin = try origin.rescaled(to: Int32(format.sampleRate)).value
        total = try end.rescaled(to: Int32(format.sampleRate)).value
        let spans = try renderer.untouchedSpans(segments, sourceOrigin: sourceOrigin)
        // Whole frames of unchanged audio on each side of a seam: the one the decoder overlaps
        // with, and the encoder's own lead-in.
        plan = AudioSplicePlan(spans: spans, packets: scanned.packets, total: total, frame: scanned.frame,
                               guardFrames: scanned.frame == 1 ? 0 : 3, canDiscard: container.isMatroska,
                               encoderDelay: delay, sharedAbove: scanned.frame == 1 ? nil : Int64(Self.secondsAWorker * format.sampleRate))
        guard plan.copiesAnything else { return nil }
        stretches = plan.pieces.compactMap { piece in
            guard case .encode(let output, let bridge) = piece else { return nil }
            return Stretch(output: output, bridge: bridge)
        }
        self.url = url
        self.settings = settings
        scan = scanned.packets
        frame = scanned.frame
        self.segments = segments
        self.stream = stream
        timeBase = AVRational(num: 1, den: Int32(format.sampleRate))
        sampleRate = format.sampleRate
        firstReader = reader
    }

    private static func bytes(_ data: UnsafeMutablePointer<UInt8>?, _ count: Int32) -> [UInt8] {
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(count)))
    }

    deinit { cancel() }

    /// Warnings about damaged source audio since the last call.
    func takeWarnings() -> [String] {
        lock.withLock {
            defer { warnings.removeAll() }
            return warnings
        }
    }

    /// Starts the workers: worker w of n renders and encodes stretches w, w + n, w + 2n … in
    /// order, rendering on its own thread and encoding on another (encoding AAC costs as much as
    /// rendering at 1x). Each queue is read in turn, so a worker ahead of the muxer waits on its
    /// full queue while the one the muxer reads goes on.
    func start() {
        guard !started else { return }
        started = true
        let seconds = stretches.map(\.output.count).reduce(0, +) / sampleRate
        let count = min(Self.workerLimit, max(1, ProcessInfo.processInfo.activeProcessorCount), stretches.count,
                        max(1, Int(seconds) / Self.secondsAWorker))
        for w in 0..<count {
            workers.enter()
            let thread = Thread { [self] in
                defer { workers.leave() }
                do {
                    let first = w == 0 ? lock.withLock { defer { firstReader = nil }; return firstReader } : nil
                    let reader = try first ?? AudioFileReader(url: url, stream: stream)
                    reader.onWarning = { [unowned self] message in lock.withLock { warnings.append(message) } }
                    let renderer = TimelineRenderer(format: reader.format, settings: settings)
                    renderer.onWarning = { [unowned self] message in lock.withLock { warnings.append("\(url.path): \(message)") } }
                    for k in stride(from: w, to: stretches.count, by: count) {
                        try encode(stretches[k], reader: reader, renderer: renderer)
                    }
                } catch {
                    for stretch in stretches { stretch.queue.fail(error) }
                }
            }
            thread.name = "slowpoke audio splice \(w + 1)"
            thread.start()
        }
    }

    /// Renders stretch `output` (with its lead-in, tail and any bridge) and encodes it into `queue`.
    private func encode(_ stretch: Stretch, reader: AudioFileReader, renderer: TimelineRenderer) throws {
        let (output, bridge, queue) = (stretch.output, stretch.bridge, stretch.queue)
        let span = SpanEncoder(make: { [unowned self] in try lock.withLock { defer { spare = nil }; return spare } ?? make() },
                               frame: frame, delay: delay, total: total, queue: queue)
        let encoding = BackgroundConsumer<SpanEncoder.Job>(name: "slowpoke audio splice encoder", consume: { try span.take($0) })
        do {
            try encoding.push(.start(output, bridge))
            let feed = bridge.map { BridgeFeed(at: span.lead(output) + $0.at, surplus: $0.surplus, frame: frame, channels: reader.format.channels) }
            var announced = false
            try renderer.render(segments, from: reader, sourceOrigin: sourceOrigin, range: span.rendered(output, bridge: bridge),
                                to: { samples, count in
                guard let feed else { return try encoding.push(.samples(samples, count)) }
                try feed.add(samples, count: count) { samples, count in
                    if !announced, let inserted = feed.inserted {
                        try encoding.push(.inserted(inserted))
                        announced = true
                    }
                    try encoding.push(.samples(samples, count))
                }
            })
            try encoding.push(.finish)
            try encoding.finish()
        } catch {
            encoding.cancel()
            throw error
        }
    }

    /// The next packet in output order into `packet` (its time in ``timeBase``), waiting up to
    /// `timeout` seconds for encoded audio; nil at the end, `false` on a timeout.
    func next(into packet: Packet, timeout: TimeInterval) throws -> Bool? {
        start()
        while piece < plan.pieces.count {
            switch plan.pieces[piece] {
            case .copy(let packets, let offset, _):
                guard sourceIndex < packets.upperBound else { piece += 1; continue }
                if let samples {
                    sourceIndex = max(sourceIndex, packets.lowerBound)
                    try samples.file.read(position: samples.positions[sourceIndex], size: samples.sizes[sourceIndex], stream: stream,
                                          discarded: samples.discarded.contains(sourceIndex), into: packet)
                } else {
                    guard let input, try input.read(into: packet) else {
                        throw ExportError.unsupported("the source's audio ended before the packets it copies")
                    }
                    guard Int(packet.pointer.pointee.stream_index) == stream else { continue }
                }
                let index = sourceIndex
                sourceIndex += 1
                guard index >= packets.lowerBound else { continue }
                let p = packet.pointer, s = scan[index]
                if audioSpecificConfig != nil, let data = p.pointee.data,
                   let header = ADTSHeader(UnsafeBufferPointer(start: data, count: Int(p.pointee.size))) {
                    p.pointee.data += header.length
                    p.pointee.size -= Int32(header.length)
                }
                p.pointee.pts = s.start + offset
                p.pointee.dts = p.pointee.pts
                p.pointee.duration = s.count
                return true
            case .encode:
                switch try stretches[stretch].queue.pop(timeout: timeout) {
                case .item(.packet(let next)):
                    LibAVCodec.packetUnref(packet.pointer)
                    LibAVCodec.packetMoveRef(packet.pointer, next.pointer)
                    return true
                case .item(.pieceEnd), .end:
                    piece += 1
                    stretch += 1
                case .timedOut: return false
                }
            }
        }
        return nil
    }

    /// Calls `body` with the source's audio stream, to make the output's from; afterwards a
    /// source whose packets are read by their places in the file closes its demuxer.
    func withSourceStream<T>(_ body: (StreamView) throws -> T) throws -> T {
        let input = try self.input ?? InputFormatContext(path: url.path)
        defer { if samples != nil { self.input = nil } }
        return try body(input.stream(stream))
    }

    /// Gives the output stream made from the source's the config its copied ADTS frames need.
    func configure(output stream: UnsafeMutablePointer<AVStream>) {
        guard let config = audioSpecificConfig, let par = stream.pointee.codecpar, par.pointee.extradata_size == 0 else { return }
        av_freep(&par.pointee.extradata)
        guard let buffer = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else { return }
        config.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: config.count) }
        par.pointee.extradata = buffer
        par.pointee.extradata_size = Int32(config.count)
    }

    /// The ADTS header of the first packet of audio `stream` of the file at `path`, if it has one.
    private static func firstADTSHeader(_ path: String, stream: Int) throws -> ADTSHeader? {
        let input = try InputFormatContext(path: path)
        input.readOnly(stream: stream)
        let packet = try Packet()
        for _ in 0..<64 {
            guard try input.read(into: packet) else { return nil }
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == stream, let data = p.data else { continue }
            return ADTSHeader(UnsafeBufferPointer(start: data, count: Int(p.size)))
        }
        return nil
    }

    /// Stops the worker, if it is running, and waits for it.
    func cancel() {
        for stretch in stretches { stretch.queue.fail(ExportError.interrupted) }
        workers.wait()
    }
}
