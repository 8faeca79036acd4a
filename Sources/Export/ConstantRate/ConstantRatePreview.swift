import Foundation

extension ConstantRateExporter {
    /// What an `--fps` export would do, known before any work (`export --dry-run --fps N`):
    /// the encoder's settings and the warnings about what it loses of the source (an alpha
    /// channel, bit depth, PQ in 8 bits, HDR10+), the lines the export itself says first.
    public struct Preview: Sendable {
        public let encoder: EncoderSettings
        public let warnings: [String]
    }

    /// The ``Preview`` of this export, from the movie's header and first video packet: nothing
    /// is decoded or written.
    public func preview() throws -> Preview {
        guard let video = source.media.primaryVideo else {
            throw ExportError.unsupported("\(source.name) has no video; --fps does not apply to audio alone")
        }
        _ = try ExportSession.container(of: output)
        let input = try InputFormatContext(path: source.movie.path)
        var warnings: [String] = []
        let encoder = try encoding(input.stream(video.index), movieName: source.name, warning: { warnings.append($0) })
        return Preview(encoder: encoder, warnings: warnings)
    }
}
