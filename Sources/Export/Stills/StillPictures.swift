import Foundation
internal import CFFmpeg
import Media

/// The picture operations a still needs, through libavfilter: a decoded frame made upright
/// (the stream's rotation applied, as players do), at its display shape (non-square pixels
/// scaled to square ones across) and in the pixel format the picture file holds.
enum StillPictures {
    /// libswscale's flags for every conversion and scaling: Lanczos, with accurate rounding and
    /// chroma interpolated at full resolution (the same flags given to ffmpeg's `-sws_flags`
    /// convert a frame the same way, bit for bit).
    static let scalerFlags = "lanczos+accurate_rnd+full_chroma_int"

    /// The bits a sample of `frame`'s pixel format holds (8 when unknown).
    static func bitDepth(of frame: Frame) -> Int {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: frame.pointer.pointee.format)) else { return 8 }
        return Int(descriptor.pointee.comp.0.depth)
    }

    /// Whether `frame`'s chroma is at full resolution (4:4:4, or RGB).
    static func hasFullChroma(_ frame: Frame) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: frame.pointer.pointee.format)) else { return false }
        return descriptor.pointee.log2_chroma_w == 0 && descriptor.pointee.log2_chroma_h == 0
    }

    /// `frame` in pixel format `format` (itself when it already is).
    static func converted(_ frame: Frame, to format: AVPixelFormat) throws -> Frame {
        guard frame.pointer.pointee.format != format.rawValue else { return frame }
        let name = String(cString: av_get_pix_fmt_name(format))
        return try run("scale=flags=\(scalerFlags),format=\(name)", on: frame, work: "converting a picture to \(name)")
    }

    /// `frame` as a still shows it: at `displayWidth` x its height when its pixels are not
    /// square, turned by `rotation` degrees clockwise (0, 90, 180 or 270), in `format`.
    static func display(_ frame: Frame, displayWidth: Int, rotation: Int, format: AVPixelFormat) throws -> Frame {
        let f = frame.pointer.pointee
        let name = String(cString: av_get_pix_fmt_name(format))
        var chain = "scale=w=\(displayWidth):h=\(f.height):flags=\(scalerFlags)"
        // JPEG readers take YCbCr as BT.601.
        if format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ444P { chain += ":out_color_matrix=bt601:out_range=full" }
        chain += ",setsar=1,format=\(name)"
        switch rotation {
        case 90: chain += ",transpose=clock"
        case 180: chain += ",hflip,vflip"
        case 270: chain += ",transpose=cclock"
        default: break
        }
        return try run(chain, on: frame, work: "making the still")
    }

    /// Runs `chain` on the one picture `frame`.
    private static func run(_ chain: String, on frame: Frame, work: String) throws -> Frame {
        let graph = try FilterGraph(chain: chain, filter: work, input: FilterGraph.input(like: frame, timeBase: "1/25"), work: work)
        try graph.add(frame)
        try graph.add(nil)
        guard let out = try graph.next() else {
            throw ExportError.unsupported("\(work) gave no picture")
        }
        return out
    }
}
