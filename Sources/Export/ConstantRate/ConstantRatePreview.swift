import Foundation
import Composition
import Media

extension ConstantRateExporter {
    /// What an `--fps` export would do, known before any work (`export --dry-run --fps N`):
    /// the encoder's settings and the warnings about what it loses of the source (an alpha
    /// channel, bit depth, PQ in 8 bits, HDR10+), the lines the export itself says first.
    public struct Preview: Sendable {
        public let encoder: EncoderSettings
        public let warnings: [Notice]
    }

    /// The ``Preview`` of this export, from the movie's header and first video packet: nothing
    /// is decoded or written.
    public func preview() throws -> Preview {
        guard let video = source.media.primaryVideo else {
            throw ExportError.unsupported("\(source.name) has no video, and a constant-rate export re-encodes video")
        }
        _ = try ExportSession.container(of: output)
        let input = try InputFormatContext(path: source.movie.path)
        var warnings: [Notice] = []
        let stream = input.stream(video.index)
        let geometry = try options.reframing?.geometry(width: Int(stream.parameters.pointee.width), height: Int(stream.parameters.pointee.height))
        let size = geometry.map { (width: Int32($0.outputWidth), height: Int32($0.outputHeight)) }
        let encoder = try encoding(stream, size: size, movieName: source.name, warning: { warnings.append($0) })
        return Preview(encoder: encoder, warnings: warnings)
    }
}
