import Composition

/// What a constant-rate export's encoder loses of the source's pictures, one plain line each:
/// an alpha channel the codec cannot keep, and bits per sample it cannot hold.
enum FormatLoss {
    /// The warnings for a source of `depth` bits, with alpha or not, encoded as `settings` say,
    /// into `output` (a file name). `movieName` names the movie as the document does.
    /// `hdr` names the source's HDR transfer when 8 bits lose what it needs (`PQ`), else nil;
    /// `dynamicHDR` says the source carries HDR10+, which only HEVC output carries on.
    static func warnings(movieName: String, alpha: Bool, depth: Int, settings: EncoderSettings,
                         outputDepth: Int, output: String, container: String, hdr: String? = nil, dynamicHDR: Bool = false) -> [Notice] {
        var lines: [Notice] = []
        let codec = settings.codec
        if alpha && !settings.alpha {
            let keepers = VideoCodec.allCases.filter { $0.keepsAlpha }
                .map { Remedy(.codec([$0.rawValue]), "into .\($0.containers.filter { $0 != "m4v" }.joined(separator: " or .")) keeps it") }
            lines.append(Notice("\(movieName)'s video has an alpha channel (transparency), which \(codec.displayName) cannot keep: \(output) drops it", remedies: keepers))
        }
        if depth > outputDepth {
            // The 10-bit codecs this container takes, when the output is 8-bit.
            let tenBit = [VideoCodec.hevc, .prores].filter { outputDepth == 8 && $0.containers.contains(container) }.map(\.rawValue)
            lines.append(Notice("\(movieName)'s video is \(depth)-bit, and \(codec.displayName) here is written at \(outputDepth) bits: \(output) reduces it to \(outputDepth)-bit",
                                remedies: tenBit.isEmpty ? [] : [Remedy(.codec(tenBit), "keeps 10 bits")]))
        }
        if let hdr, outputDepth == 8 {
            // HDR in 8 bits bands, and x264 writes no mastering display or content light level.
            let keeper = VideoCodec.hevc.containers.contains(container) ? [Remedy(.codec(["hevc"]), "keeps HDR10: 10 bits, mastering display and content light level")] : []
            lines.append(Notice("\(movieName)'s video is HDR (\(hdr)), and \(codec.displayName) here is 8-bit: \(output) keeps the \(hdr) colour tags on 8-bit pictures, which band, and carries no mastering display or content light level",
                                remedies: keeper))
        }
        if dynamicHDR && codec != .hevc {
            let keeper = VideoCodec.hevc.containers.contains(container) ? [Remedy(.codec(["hevc"]), "keeps it")] : []
            lines.append(Notice("\(movieName)'s video carries HDR10+ dynamic metadata (SMPTE ST 2094-40), which \(codec.displayName) here does not: \(output) drops it",
                                remedies: keeper))
        }
        return lines
    }
}
