import Foundation
import Composition
import TimePitch
internal import CFFmpeg
import Media

/// An audio track of a movie rendered through a timeline and encoded (see ``AudioCodecChoice``)
/// while the video is written.
/// Two threads of its own do the work: one decodes and renders (Rubber Band may add its own),
/// the other encodes, since AAC is most of an export's audio cost. Encoded packets wait in a
/// bounded queue until the muxer interleaves them with the video, so memory stays bounded
/// however long the movie, and the audio never holds up the video longer than it must.
///
/// `@unchecked Sendable`: once the threads start (at the end of `init`), the reader, renderer and encoder belong to the
/// worker threads alone; what the threads share (the packet queue, `warnings`) is locked.
final class RenderedAudio: @unchecked Sendable {
    /// The encoder's output parameters, for the muxer's stream (copied before the threads start).
    let parameters: CodecParameters
    let timeBase: AVRational
    /// The source stream's metadata (language, handler) and disposition, for the output stream.
    let metadata: MetadataDictionary
    let disposition: Int32
    private let reader: AudioFileReader
    private let renderer: TimelineRenderer
    private let encoder: AudioEncoder
    private let segments: [CompositionTrackSegment]
    private let sourceOrigin: Int64
    private let packets = BlockingQueue<Packet>(capacity: 256)
    private let workers = DispatchGroup()
    private let lock = NSLock()
    private var warnings: [String] = []

    /// Opens the audio `stream` of `url` and an encoder as `choice` says, and starts rendering
    /// and encoding. `origin` is the source time the timeline's source time 0 stands for.
    init(url: URL, stream: Int, segments: [CompositionTrackSegment], settings: TimePitchSettings, choice: AudioCodecChoice,
         origin: Time, container: Container, display: String) throws {
        reader = try AudioFileReader(url: url, stream: stream)
        // Copied rather than kept open: every open movie holds its sample tables, which grow
        // with the movie's length.
        let movie = try InputFormatContext(path: url.path)
        metadata = try MetadataDictionary(copying: movie.stream(stream).pointer.pointee.metadata, display: display)
        disposition = movie.stream(stream).pointer.pointee.disposition
        let globalHeader = container.globalHeader
        encoder = try AudioEncoder(format: reader.format, codecID: choice.codec, sampleFormat: choice.sampleFormat,
                                   bitRate: choice.bitRate, bitsPerRawSample: choice.bitsPerRawSample,
                                   layout: reader.layout,
                                   globalHeader: globalHeader, display: display)
        parameters = try CodecParameters(of: encoder.context, display: display)
        timeBase = encoder.timeBase
        renderer = TimelineRenderer(format: reader.format, settings: settings)
        self.segments = segments
        sourceOrigin = try origin.rescaled(to: Int32(reader.format.sampleRate)).value
        reader.onWarning = { [unowned self] message in lock.withLock { warnings.append(message) } }
        renderer.onWarning = { [unowned self] message in lock.withLock { warnings.append("\(url.path): \(message)") } }
        start()
    }

    /// Warnings about damaged source audio since the last call.
    func takeWarnings() -> [String] {
        lock.withLock {
            defer { warnings.removeAll() }
            return warnings
        }
    }

    private func start() {
        workers.enter()
        let render = Thread { [self] in
            defer { workers.leave() }
            let packets = self.packets, encoder = self.encoder
            let deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void = { packet in
                let copy = try Packet()
                LibAVCodec.packetMoveRef(copy.pointer, packet)
                try packets.push(copy)
            }
            let encoding = BackgroundConsumer<(samples: [[Float]], count: Int)>(
                name: "slowpoke audio encoder",
                consume: { try encoder.write($0.samples, count: $0.count, deliver: deliver) },
                finished: {
                    try encoder.finish(deliver: deliver)
                    packets.close()
                })
            do {
                try renderer.render(segments, from: reader, sourceOrigin: sourceOrigin, to: { samples, count in
                    try encoding.push((samples, count))
                })
                try encoding.finish()
            } catch {
                encoding.cancel()
                packets.fail(error)
            }
        }
        render.name = "slowpoke audio render"
        render.start()
    }

    /// The next encoded packet (in ``timeBase``), waiting up to `timeout` seconds for it.
    /// Throws the workers' error, if they failed.
    func next(timeout: TimeInterval) throws -> BlockingQueue<Packet>.Popped {
        try packets.pop(timeout: timeout)
    }

    /// Stops the workers, if they are still running, and waits for them. Their threads hold this
    /// object, so whoever started them must cancel or drain them.
    func cancel() {
        packets.fail(ExportError.interrupted)
        workers.wait()
    }
}
