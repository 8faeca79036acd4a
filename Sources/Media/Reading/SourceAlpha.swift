internal import CFFmpeg

/// Whether a video stream carries an alpha channel, and which decoder gives it back. ProRes
/// 4444 and other formats with alpha say so in their pixel format; VP8 and VP9 in WebM or
/// Matroska keep alpha in a second stream of their own (BlockAdditional), which the stream's
/// `alpha_mode` tag announces and only libvpx's decoders read (libavcodec's own VP9 decoder
/// gives the colour planes alone, as `yuv420p`).
package enum SourceAlpha {
    package static func has(_ stream: StreamView) -> Bool {
        let parameters = stream.parameters.pointee
        if let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: parameters.format)),
           desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 { return true }
        return libvpxDecoder(for: stream) != nil
    }

    /// `libvpx-vp9` (or `libvpx` for VP8) for a stream whose alpha only libvpx decodes; nil
    /// for any other stream, which libavcodec's default decoder serves.
    static func libvpxDecoder(for stream: StreamView) -> String? {
        let id = stream.parameters.pointee.codec_id
        guard id == AV_CODEC_ID_VP9 || id == AV_CODEC_ID_VP8,
              let mode = av_dict_get(stream.pointer.pointee.metadata, "alpha_mode", nil, 0),
              String(cString: mode.pointee.value) == "1" else { return nil }
        return id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx"
    }

    /// Bits per sample of the stream's pixel format (8 when it does not say).
    package static func depth(of stream: StreamView) -> Int {
        av_pix_fmt_desc_get(AVPixelFormat(rawValue: stream.parameters.pointee.format)).map { Int($0.pointee.comp.0.depth) } ?? 8
    }
}
