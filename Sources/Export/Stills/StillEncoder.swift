import Foundation
internal import CFFmpeg
import Media

/// Encodes one picture as a PNG, JPEG or TIFF file's bytes with libavcodec's own encoders
/// (`png`, `mjpeg` at quality scale 2, `tiff` with deflate), keeping the picture's colour tags
/// for the encoder to write where its format has a place for them.
enum StillEncoder {
    static func encode(_ picture: Frame, as format: StillFormat, display: String) throws -> Data {
        try LibAV.load()
        guard let codec = LibAVCodec.findEncoderByName(format.encoderName) else {
            throw ExportError.unsupported("this FFmpeg has no \(format.encoderName) encoder, which writing .\(format.rawValue) needs")
        }
        let context = try CodecContext(codec: codec)
        let p = picture.pointer.pointee
        let c = context.pointer
        c.pointee.width = p.width
        c.pointee.height = p.height
        c.pointee.pix_fmt = AVPixelFormat(rawValue: p.format)
        c.pointee.time_base = AVRational(num: 1, den: 25)
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.color_primaries = p.color_primaries
        c.pointee.color_trc = p.color_trc
        c.pointee.color_range = format == .jpeg ? AVCOL_RANGE_JPEG : p.color_range
        switch format {
        case .jpeg:
            c.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            c.pointee.global_quality = Int32(FF_QP2LAMBDA) * 2
            c.pointee.colorspace = AVCOL_SPC_BT470BG
        case .png:
            _ = av_opt_set(c.pointee.priv_data, "pred", "mixed", 0)
        case .tiff:
            _ = av_opt_set(c.pointee.priv_data, "compression_algo", "deflate", 0)
        }
        try context.check(LibAVCodec.openCodec(c, codec, nil), "opening the \(format.encoderName) encoder", display)
        guard let frame = av_frame_clone(picture.pointer) else {
            throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "copying a frame"))
        }
        let owned = Frame(owning: frame)
        owned.pointer.pointee.pts = 0
        owned.pointer.pointee.quality = c.pointee.global_quality
        owned.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try context.check(LibAVCodec.sendFrame(c, owned.pointer), "encoding the still", display)
        try context.check(LibAVCodec.sendFrame(c, nil), "finishing the still", display)
        let packet = try Packet()
        var bytes = Data()
        while true {
            let got = LibAVCodec.receivePacket(c, packet.pointer)
            if got == sp_averror_eof() || got == sp_averror_eagain() { break }
            try context.check(got, "encoding the still", display)
            bytes.append(packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
            LibAVCodec.packetUnref(packet.pointer)
        }
        guard !bytes.isEmpty else { throw ExportError.unsupported("the \(format.encoderName) encoder wrote nothing for \(display)") }
        return bytes
    }
}
