public import Foundation
import Composition
internal import CFFmpeg
import Media

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

    /// libavcodec's codec.
    var codecID: AVCodecID {
        switch self {
        case .h264: AV_CODEC_ID_H264
        case .hevc: AV_CODEC_ID_HEVC
        case .prores: AV_CODEC_ID_PRORES
        case .vp9: AV_CODEC_ID_VP9
        }
    }

    /// The output extensions it is written into, in the order users are told about them (see
    /// ``Container/extensions(encodingVideo:)``).
    public var containers: [String] { Container.extensions(encodingVideo: codecID) }

    /// Whether it keeps a source's alpha channel (x264 and x265 here cannot).
    public var keepsAlpha: Bool { self == .prores || self == .vp9 }

    /// The codec an export uses when none is asked for: for a source with an alpha channel, the
    /// one that keeps it in `container` (ProRes in .mov, VP9 in .mkv and .webm); else H.264.
    public static func defaultCodec(alphaSource: Bool, container: String) -> VideoCodec {
        guard alphaSource else { return .h264 }
        let ext = container.lowercased()
        return [VideoCodec.vp9, .prores].first { $0.containers.contains(ext) } ?? .h264
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
        let holds = Container(movie: ext)?.isWebM == true ? ".webm holds only VP8, VP9 and AV1 video" : ".\(ext) cannot hold it"
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
