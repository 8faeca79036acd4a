internal import CFFmpeg
import Media

/// Which four-character code a copied stream keeps in the output: the source's, wherever the
/// container takes it, as `ffmpeg -c copy` decides. ProRes 422 LT (`apcs`), 4444 (`ap4h`) and
/// XQ (`ap4x`) are told apart by it (editors pick their decoder by it, and ffmpeg decodes 4444
/// at 12 bits only under its own tag), HEVC by `hvc1`/`hev1`/`dvh1`, H.264 by `avc1`.
enum CodecTag {
    /// `tag` for `codec` in `format`: kept when the container's tag tables give `codec` for it,
    /// or know no tag for `codec` at all (Matroska keeps a ProRes fourcc in its codec private
    /// data); otherwise 0, which lets the muxer choose.
    static func kept(_ tag: UInt32, codec: AVCodecID, in format: UnsafePointer<AVOutputFormat>) -> UInt32 {
        guard tag != 0 else { return 0 }
        guard let tables = format.pointee.codec_tag else { return tag }
        if LibAVFormat.codecGetID(tables, tag) == codec { return tag }
        var other: UInt32 = 0
        return LibAVFormat.codecGetTag2(tables, codec, &other) == 0 ? tag : 0
    }

    /// `code` as libavformat stores it (first character in the low byte).
    static func fourCC(_ code: String) -> UInt32 {
        code.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
