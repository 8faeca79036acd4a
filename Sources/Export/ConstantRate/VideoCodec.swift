public import Foundation
import Composition

/// The video codecs constant-rate export encodes with, and the facts about each that the
/// export asks: its encoder, the containers it goes into, and whether it keeps an alpha channel.
public enum VideoCodec: String, CaseIterable, Sendable {
    case h264, hevc
    /// ProRes 4444 (prores_ks), 10-bit 4:4:4, with the source's alpha channel when it has one.
    case prores
    /// VP9 (libvpx-vp9), 8-bit 4:2:0, with the source's alpha channel when it has one.
    case vp9

    /// libavcodec's encoder for it.
    var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .prores: "prores_ks"
        case .vp9: "libvpx-vp9"
        }
    }

    /// The output extensions it is written into, in the order users are told about them.
    /// Measured with FFmpeg 5.1's muxers: mp4 has no tag for ProRes and WebM none for H.264,
    /// HEVC or ProRes; mov takes VP9 only as mp4 (refused), and VP9 in mp4 would lose its alpha
    /// (it rides in Matroska's BlockAdditional), so VP9 goes to WebM and Matroska.
    public var containers: [String] {
        switch self {
        case .h264, .hevc: ["mp4", "m4v", "mov", "mkv"]
        case .prores: ["mov", "mkv"]
        case .vp9: ["webm", "mkv"]
        }
    }

    /// Whether it keeps a source's alpha channel (x264 and x265 here cannot).
    public var keepsAlpha: Bool { self == .prores || self == .vp9 }

    /// The codec an export uses when none is asked for: for a source with an alpha channel, the
    /// one that keeps it in `container` (ProRes in .mov, VP9 in .mkv and .webm); else H.264.
    public static func defaultCodec(alphaSource: Bool, container: String) -> VideoCodec {
        guard alphaSource else { return .h264 }
        switch container.lowercased() {
        case "mov": return .prores
        case "mkv", "webm": return .vp9
        default: return .h264
        }
    }

    /// Refuses an output `file` whose container `self` cannot be written into, naming the
    /// containers it can go into and the codecs the file's container takes.
    public func check(output file: URL) throws(ExportError) {
        let ext = file.pathExtension.lowercased()
        guard !containers.contains(ext) else { return }
        // A transport stream on standard output carries H.264 and HEVC.
        if StandardOutput.isStandardOutput(file), ext == "ts", self == .h264 || self == .hevc { return }
        let others = Self.allCases.filter { $0.containers.contains(ext) }.map(\.rawValue)
        let shown = containers.filter { $0 != "m4v" }
        let holds = ext == "webm" ? ".webm holds only VP8, VP9 and AV1 video" : ".\(ext) cannot hold it"
        throw .unavailable(Notice("\(file.lastPathComponent): a constant-rate export with the \(rawValue) codec writes \(displayName), and \(holds)",
                                  remedies: [Remedy(.container(shown))] + (others.isEmpty ? [] : [Remedy(.codec(others), "into .\(ext)")])))
    }

    /// How messages name it.
    public var displayName: String {
        switch self {
        case .h264: "H.264"
        case .hevc: "HEVC"
        case .prores: "ProRes 4444"
        case .vp9: "VP9"
        }
    }
}
