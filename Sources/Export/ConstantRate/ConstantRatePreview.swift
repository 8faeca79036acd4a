import Foundation
public import Composition
import Composition
import Media

extension ConstantRateExporter {
    /// What an `--fps` export would do, known before any work (`export --dry-run --fps N`,
    /// `info --fps N`): the encoder's settings, what becomes of every stream, and the warnings
    /// the export itself says first, in its order: the streams it does not carry (and video
    /// that changes size), then what the encoder loses of the source (an alpha channel, bit
    /// depth, PQ in 8 bits, HDR10+).
    public struct Preview: Sendable {
        public let encoder: EncoderSettings
        public let warnings: [Notice]
        /// What the export does with every stream of the movie.
        public let streams: StreamPlan
    }

    /// The ``Preview`` of this export, from the movie's header and first video packet: nothing
    /// is decoded, claimed or written.
    public func preview() throws -> Preview {
        guard let video = source.media.primaryVideo else {
            throw ExportError.unsupported("\(source.name) has no video, and a constant-rate export re-encodes video")
        }
        let container = try ExportSession.container(of: output)
        let input = try InputFormatContext(path: source.movie.path)
        let (preflight, streams) = try ExportSession.preflight(header: input, source: source, container: container,
                                                               copyingVideo: false, settings: settings)
        let stream = input.stream(video.index)
        let geometry = try options.reframing?.geometry(width: Int(stream.parameters.pointee.width), height: Int(stream.parameters.pointee.height))
        let size = geometry.map { (width: Int32($0.outputWidth), height: Int32($0.outputHeight)) }
        let (encoder, warnings) = try beforeAnyWork(preflight: preflight, stream: stream, size: size)
        return Preview(encoder: encoder, warnings: warnings, streams: streams)
    }

    /// What the export says before any work, in the order it says it: the session's `preflight`
    /// notices, then what the encoder of `stream` (at `size`, the stream's own by default) loses
    /// of the source. ``run(progress:warning:)`` and ``preview()`` both say these, so the plan
    /// and the export cannot disagree.
    func beforeAnyWork(preflight: [Notice], stream: StreamView, size: (width: Int32, height: Int32)? = nil)
        throws -> (encoder: EncoderSettings, warnings: [Notice]) {
        var warnings = preflight
        let encoder = try encoding(stream, size: size, movieName: source.name, warning: { warnings.append($0) })
        return (encoder, warnings)
    }
}
