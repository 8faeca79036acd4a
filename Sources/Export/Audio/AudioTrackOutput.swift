import Foundation
import Composition
import TimePitch
internal import CFFmpeg
import Media

/// One audio track of an exported movie. It is copied packet for packet when the timeline leaves
/// the audio untouched; otherwise it is rendered through TimePitch and encoded on threads of its
/// own (``RenderedAudio``) while the video is written, and its packets are interleaved with the
/// video as they come.
final class AudioTrackOutput {
    /// How a track is made: its own packets copied, copied where untouched and rendered where
    /// edited (smart audio), or rendered whole.
    enum Mode { case copy, splice, render }

    /// Where its packets come from.
    private enum Source {
        /// The movie, opened a second time to read the packets of stream `index`.
        case copied(InputFormatContext, index: Int)
        case spliced(SplicedAudio)
        case rendered(RenderedAudio)
    }

    let handling: AudioHandling
    private let source: Source
    private let container: Container
    private let warning: (String) -> Void
    private let waiting: () throws -> Void
    private var output: UnsafeMutablePointer<AVStream>?
    private let packet: Packet
    private var pending = false
    private var done = false
    private let timeBase: AVRational
    private let shift: Int64
    /// Added to every packet's time: the encoder delay a container states for itself.
    private var leadIn: Int64 = 0
    private let end: Int64

    /// Prepares audio `stream` of the movie for the timeline of `setup` as `mode` says
    /// (rendering and splicing start at once), encoded as `choice` says where it is encoded.
    /// A track that cannot be spliced (nothing to copy) is rendered whole.
    init(_ setup: AudioSetup, stream: Int, mode: Mode, choice: AudioCodecChoice) throws {
        container = setup.container
        warning = setup.warning
        waiting = setup.waiting
        packet = try Packet()
        let smart = mode != .splice ? nil
            : try SplicedAudio(movie: setup.movie, stream: stream, segments: setup.segments, settings: setup.settings, choice: choice,
                               origin: setup.origin, end: setup.end, container: setup.container, display: setup.display)
        if let smart {
            if smart.plan.offGrid > 0 {
                let seconds = Double(smart.plan.offGrid) / Double(smart.timeBase.den)
                warning("audio stream \(stream): \(String(format: "%.1f", seconds)) s of unchanged audio is re-encoded, not copied: after an edit its \(smart.frame)-sample frames fall off the grid of the copied ones, and a frame cannot be cut, so the audio stays exactly in place")
            }
            handling = .spliced
            source = .spliced(smart)
            timeBase = smart.timeBase
            smart.start()
        } else if mode == .copy {
            handling = .copied
            let input = try InputFormatContext(path: setup.movie.path)
            input.readOnly(stream: stream)
            source = .copied(input, index: stream)
            timeBase = input.stream(stream).pointer.pointee.time_base
        } else {
            handling = .rendered
            let audio = try RenderedAudio(url: setup.movie, stream: stream, segments: setup.segments, settings: setup.settings,
                                          choice: choice, origin: setup.origin, container: setup.container, display: setup.display)
            source = .rendered(audio)
            timeBase = audio.timeBase
        }
        // Copied audio shifts by the same origin as the video, and stops where the timeline does.
        let ticksPerSecond = timeBase.den / max(1, timeBase.num)
        shift = handling == .copied ? try setup.origin.rescaled(to: ticksPerSecond).value : 0
        end = try setup.end.rescaled(to: ticksPerSecond, rounding: .up).value
    }

    deinit {
        switch source {
        case .rendered(let audio): audio.cancel()
        case .spliced(let audio): audio.cancel()
        case .copied: break
        }
    }

    /// Adds the output stream, with the movie's language and handler even for new samples.
    func attach(to writer: MovieWriter) throws {
        switch source {
        case .rendered(let rendered):
            output = try writer.addStream(parameters: rendered.parameters.pointer, timeBase: timeBase,
                                          metadata: rendered.metadata.pointer, disposition: rendered.disposition)
        case .copied(let input, let index):
            output = try writer.addStream(copying: input.stream(index), timeBase: timeBase)
        case .spliced(let spliced):
            output = try spliced.withSourceStream { try writer.addStream(copying: $0, timeBase: timeBase) }
            if let output { spliced.configure(output: output) }
            // Spliced Opus starts with an encoded packet whose pre-skip the header states.
            if let parameters = output?.pointee.codecpar, parameters.pointee.codec_id == AV_CODEC_ID_OPUS,
               parameters.pointee.initial_padding == 0, let head = parameters.pointee.extradata,
               let preSkip = OpusPacket.preSkip(UnsafeBufferPointer(start: head, count: Int(parameters.pointee.extradata_size))) {
                parameters.pointee.initial_padding = Int32(preSkip)
            }
        }
        // Matroska states Opus's encoder delay (CodecDelay) and players skip it; the first
        // packet's negative time would instead delay every stream to make room.
        if container.isMatroska, let parameters = output?.pointee.codecpar.pointee, parameters.codec_id == AV_CODEC_ID_OPUS,
           parameters.initial_padding > 0, parameters.sample_rate > 0 {
            leadIn = av_rescale_q(Int64(parameters.initial_padding), AVRational(num: 1, den: parameters.sample_rate), timeBase)
        }
    }

    /// The next packet of the audio into `packet`; false at the end.
    private func read() throws -> Bool {
        switch source {
        case .spliced(let spliced):
            while true {
                for message in spliced.takeWarnings() { warning(message) }
                guard let got = try spliced.next(into: packet, timeout: 0.05) else { return false }
                if got { return true }
                try waiting()
            }
        case .rendered(let rendered):
            while true {
                for message in rendered.takeWarnings() { warning(message) }
                switch try rendered.next(timeout: 0.05) {
                case .item(let next):
                    LibAVCodec.packetUnref(packet.pointer)
                    LibAVCodec.packetMoveRef(packet.pointer, next.pointer)
                    return true
                case .end:
                    // The reader finished before the last packet came; its last words too.
                    for message in rendered.takeWarnings() { warning(message) }
                    return false
                case .timedOut: try waiting()
                }
            }
        case .copied(let input, let index):
            while try input.read(into: packet) {
                if Int(packet.pointer.pointee.stream_index) == index { return true }
            }
            return false
        }
    }

    /// Writes every audio packet due before `dts` (in `base`) to `writer`.
    func pump(upTo dts: Int64, in base: AVRational, writer: MovieWriter) throws {
        while !done {
            if !pending {
                guard try read() else { done = true; return }
                pending = true
            }
            let p = packet.pointer
            if handling == .copied {
                if p.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                    let at = Double(p.pointee.pts) * Double(timeBase.num) / Double(timeBase.den)
                    warning("skipped a damaged audio packet at \(String(format: "%.3f", at)) s")
                    pending = false
                    continue
                }
                if p.pointee.pts != sp_av_nopts_value() && p.pointee.pts - shift >= end {
                    done = true
                    return
                }
            }
            // Matroska cannot hold the AAC priming packet's negative time and would delay every
            // stream to make room, moving the video half a frame; the packet decodes only to
            // priming, which the decoder discards anyway, so it is left out.
            if container.isMatroska, p.pointee.pts != sp_av_nopts_value(), p.pointee.pts - shift + p.pointee.duration <= 0 {
                pending = false
                continue
            }
            let adts = p.pointee.dts != sp_av_nopts_value() ? p.pointee.dts : p.pointee.pts
            if av_compare_ts(adts - shift, timeBase, dts, base) > 0 { return }
            if p.pointee.pts != sp_av_nopts_value() { p.pointee.pts += leadIn - shift }
            if p.pointee.dts != sp_av_nopts_value() { p.pointee.dts += leadIn - shift }
            p.pointee.stream_index = output!.pointee.index
            LibAVCodec.packetRescaleTS(p, timeBase, output!.pointee.time_base)
            p.pointee.pos = -1
            try writer.write(p)
            pending = false
        }
    }

    /// Writes whatever audio is left.
    func finish(writer: MovieWriter) throws {
        try pump(upTo: Int64.max / 4, in: AVRational(num: 1, den: 1), writer: writer)
    }
}
