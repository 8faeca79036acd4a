import Foundation
internal import CFFmpeg

/// The picture file a still is written as, from its extension, and how libavcodec encodes it.
public enum StillFormat: String, Sendable, CaseIterable {
    case png, jpeg, tiff

    /// The format `url`'s extension names (`.png`, `.jpg` or `.jpeg`, `.tif` or `.tiff`), or nil.
    public init?(url: URL) {
        switch url.pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "tif", "tiff": self = .tiff
        default: return nil
        }
    }

    /// libavcodec's encoder.
    var encoderName: String {
        switch self {
        case .png: "png"
        case .jpeg: "mjpeg"
        case .tiff: "tiff"
        }
    }

    /// Whether the format keeps 16 bits a sample (a deeper source's bits); JPEG holds 8.
    public var keepsDeepSamples: Bool { self != .jpeg }

    /// The pixel format written: RGB (16-bit for sources deeper than 8 bits) for PNG and TIFF,
    /// full-range YCbCr for JPEG (4:4:4 when the source's chroma is, else 4:2:0).
    func pixelFormat(deep: Bool, fullChroma: Bool) -> AVPixelFormat {
        switch self {
        case .png: deep ? AV_PIX_FMT_RGB48BE : AV_PIX_FMT_RGB24
        case .tiff: deep ? AV_PIX_FMT_RGB48LE : AV_PIX_FMT_RGB24
        case .jpeg: fullChroma ? AV_PIX_FMT_YUVJ444P : AV_PIX_FMT_YUVJ420P
        }
    }
}
