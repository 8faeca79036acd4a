/// What a constant-rate export's encoder loses of the source's pictures, one plain line each:
/// an alpha channel the codec cannot keep, and bits per sample it cannot hold.
enum FormatLoss {
    /// The warnings for a source of `depth` bits, with alpha or not, encoded as `settings` say,
    /// into `output` (a file name). `movieName` names the movie as the document does.
    /// `hdr` names the source's HDR transfer when 8 bits lose what it needs (`PQ`), else nil;
    /// `dynamicHDR` says the source carries HDR10+, which only HEVC output carries on.
    static func warnings(movieName: String, alpha: Bool, depth: Int, settings: EncoderSettings,
                         outputDepth: Int, output: String, container: String, hdr: String? = nil, dynamicHDR: Bool = false) -> [String] {
        var lines: [String] = []
        let codec = settings.codec
        if alpha && !settings.alpha {
            let keepers = VideoCodec.allCases.filter { $0.keepsAlpha }
                .map { "--codec \($0.rawValue) into .\($0.containers.filter { $0 != "m4v" }.joined(separator: " or ."))" }
            lines.append("\(movieName)'s video has an alpha channel (transparency), which \(codec.displayName) cannot keep: \(output) drops it (\(keepers.joined(separator: ", or ")) keeps it)")
        }
        if depth > outputDepth {
            var line = "\(movieName)'s video is \(depth)-bit, and \(codec.displayName) here is written at \(outputDepth) bits: \(output) reduces it to \(outputDepth)-bit"
            // The 10-bit codecs this container takes, when the output is 8-bit.
            let tenBit = [VideoCodec.hevc, .prores].filter { outputDepth == 8 && $0.containers.contains(container) }
                .map { "--codec \($0.rawValue)" }
            if !tenBit.isEmpty { line += " (\(tenBit.joined(separator: " or ")) keeps 10 bits)" }
            lines.append(line)
        }
        if let hdr, outputDepth == 8 {
            // HDR in 8 bits bands, and x264 writes no mastering display or content light level.
            let keeper = VideoCodec.hevc.containers.contains(container) ? " (--codec hevc keeps HDR10: 10 bits, mastering display and content light level)" : ""
            lines.append("\(movieName)'s video is HDR (\(hdr)), and \(codec.displayName) here is 8-bit: \(output) keeps the \(hdr) colour tags on 8-bit pictures, which band, and carries no mastering display or content light level\(keeper)")
        }
        if dynamicHDR && codec != .hevc {
            let keeper = VideoCodec.hevc.containers.contains(container) ? " (--codec hevc keeps it)" : ""
            lines.append("\(movieName)'s video carries HDR10+ dynamic metadata (SMPTE ST 2094-40), which \(codec.displayName) here does not: \(output) drops it\(keeper)")
        }
        return lines
    }
}
