import Foundation
internal import CFFmpeg
import Media

/// A black picture the size, pixel format and colour tags of a stream's frames: what a gap
/// shows when passthrough re-encodes it (``GOPRenderer``). Black is the format's own (luma 16
/// in limited range, 0 in full range, chroma neutral), as `av_image_fill_black` writes it.
enum BlackPicture {
    static func make(like parameters: UnsafePointer<AVCodecParameters>) throws -> Frame {
        let p = parameters.pointee
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.width = p.width
        f.pointee.height = p.height
        f.pointee.format = p.format
        f.pointee.color_range = p.color_range
        f.pointee.colorspace = p.color_space
        f.pointee.color_primaries = p.color_primaries
        f.pointee.color_trc = p.color_trc
        f.pointee.sample_aspect_ratio = p.sample_aspect_ratio
        let allocated = av_frame_get_buffer(f, 0)
        guard allocated >= 0 else { throw ExportError.libav(AVFailure(code: allocated, operation: "allocating a black picture")) }
        let format = AVPixelFormat(rawValue: p.format)
        let full = p.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P
        var data = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3]
        let lines = [Int(f.pointee.linesize.0), Int(f.pointee.linesize.1), Int(f.pointee.linesize.2), Int(f.pointee.linesize.3)]
        let filled = av_image_fill_black(&data, lines, format, full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG, p.width, p.height)
        guard filled >= 0 else { throw ExportError.libav(AVFailure(code: filled, operation: "filling a black picture")) }
        return frame
    }
}
