import Foundation
import Composition
import TimePitch
internal import CFFmpeg

/// The audio of an exported movie. It is copied packet for packet when the timeline leaves the
/// audio untouched; otherwise it is rendered offline through TimePitch into a hidden scratch
/// AAC file beside the output, whose packets are then interleaved with the video.
final class AudioTrackOutput {
    let handling: PassthroughExporter.AudioHandling
    private let movie: InputFormatContext?
    private let input: InputFormatContext?
    private let inputIndex: Int
    private let sourceIndex: Int
    private var scratch: AtomicOutput?
    private let muxer: String
    private let warning: (String) -> Void
    private var output: UnsafeMutablePointer<AVStream>?
    private let packet: Packet
    private var pending = false
    private var done: Bool
    private let timeBase: AVRational
    private let shift: Int64
    private let end: Int64

    /// Prepares the audio of `stream` (nil: the movie has none) for a timeline of `segments`.
    /// Rendering happens here, reporting `progress` from 0 to 1.
    init(movie url: URL, stream: StreamInfo?, segments: [CompositionTrackSegment], untouched: Bool,
         settings: TimePitchSettings, bitRate: Int, origin: Time, end: Time, muxer: String, beside output: URL,
         progress: @escaping (Double) throws -> Void, warning: @escaping (String) -> Void) throws {
        self.muxer = muxer
        self.warning = warning
        packet = try Packet()
        sourceIndex = stream?.index ?? -1
        guard let stream else {
            handling = .none
            movie = nil; input = nil; inputIndex = 0
            done = true
            timeBase = AVRational(num: 1, den: 1); shift = 0; self.end = 0
            return
        }
        movie = try InputFormatContext(path: url.path)
        if untouched && settings.semitones == 0 {
            handling = .copied
            let source = try InputFormatContext(path: url.path)
            for other in 0..<source.streamCount where other != stream.index { source.stream(other).pointer.pointee.discard = AVDISCARD_ALL }
            input = source
            inputIndex = stream.index
        } else {
            handling = .rendered
            let temp = try AtomicOutput(destination: output.deletingLastPathComponent()
                .appendingPathComponent(".\(output.lastPathComponent).audio-\(getpid()).m4a"), force: true)
            scratch = temp
            let reader = try AudioFileReader(url: url, stream: stream.index)
            reader.onWarning = warning
            let writer = try AudioFileWriter(output: temp, format: reader.format, depth: .aac(bitRate: bitRate))
            let encoder = BackgroundAudioEncoder(writer: writer)
            let renderer = TimelineRenderer(format: reader.format, settings: settings)
            let sourceOrigin = try origin.rescaled(to: Int32(reader.format.sampleRate)).value
            do {
                try renderer.render(segments, from: reader, sourceOrigin: sourceOrigin, to: { samples, count in
                    try encoder.write(samples, count: count)
                }, progress: progress)
                try encoder.finish()
            } catch {
                // The worker may hold the writer (and so the scratch file) a moment longer.
                encoder.cancel()
                temp.discard()
                throw error
            }
            input = try InputFormatContext(path: temp.temporary.path)
            inputIndex = 0
        }
        done = false
        timeBase = input!.stream(inputIndex).pointer.pointee.time_base
        // Copied audio shifts by the same origin as the video, and stops where the timeline does.
        let ticksPerSecond = timeBase.den / max(1, timeBase.num)
        shift = handling == .copied ? try origin.rescaled(to: ticksPerSecond).value : 0
        self.end = try end.rescaled(to: ticksPerSecond, rounding: .up).value
    }

    deinit { scratch?.discard() }

    /// Adds the output stream, with the movie's language and handler even for new samples.
    func addStream(to writer: MovieWriter) throws {
        guard let input, let movie else { return }
        let stream = try writer.addStream(copying: input.stream(inputIndex), timeBase: timeBase)
        if handling == .rendered {
            av_dict_copy(&stream.pointee.metadata, movie.stream(sourceIndex).pointer.pointee.metadata, 0)
        }
        output = stream
    }

    /// Writes every audio packet due before `dts` (in `base`) to `writer`.
    func pump(upTo dts: Int64, in base: AVRational, writer: MovieWriter) throws {
        while !done {
            if !pending {
                guard let input else { done = true; return }
                var got = false
                while !got {
                    guard try input.read(into: packet) else { done = true; return }
                    got = Int(packet.pointer.pointee.stream_index) == inputIndex
                }
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
            if muxer == "matroska", p.pointee.pts != sp_av_nopts_value(), p.pointee.pts - shift + p.pointee.duration <= 0 {
                pending = false
                continue
            }
            let adts = p.pointee.dts != sp_av_nopts_value() ? p.pointee.dts : p.pointee.pts
            if av_compare_ts(adts - shift, timeBase, dts, base) > 0 { return }
            if p.pointee.pts != sp_av_nopts_value() { p.pointee.pts -= shift }
            if p.pointee.dts != sp_av_nopts_value() { p.pointee.dts -= shift }
            p.pointee.stream_index = output!.pointee.index
            av_packet_rescale_ts(p, timeBase, output!.pointee.time_base)
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
