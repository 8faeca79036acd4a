import Foundation
internal import CFFmpeg
import Media

/// Turns text subtitles of one codec into another (SRT, ASS or WebVTT into mov_text for mp4
/// and mov; mov_text into SRT for Matroska): each cue is decoded to ASS events and encoded
/// again. Only the text travels; the cue's times are the packet's, set by the caller.
final class SubtitleConverter {
    let encoder: CodecContext
    private let decoder: CodecContext
    private let display: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// A converter from `stream`'s codec to `target`, whose output is in `timeBase`.
    init(stream: StreamView, target: AVCodecID, timeBase: AVRational, globalHeader: Bool, display: String) throws(ExportError) {
        self.display = display
        decoder = try media { () throws(MediaError) in try CodecContext.decoder(for: stream) }
        guard let codec = LibAVCodec.findEncoder(target) else {
            throw .unsupported("this FFmpeg has no \(String(cString: LibAVCodec.codecName(target))) encoder")
        }
        encoder = try media { () throws(MediaError) in try CodecContext(codec: codec) }
        let e = encoder.pointer
        e.pointee.time_base = timeBase
        if globalHeader { e.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // The styles the decoder read (an ASS header, or the default one) go to the encoder.
        if let header = decoder.pointer.pointee.subtitle_header, decoder.pointer.pointee.subtitle_header_size > 0 {
            let size = Int(decoder.pointer.pointee.subtitle_header_size)
            guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else {
                throw .av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "copying the subtitle styles"))
            }
            copy.update(from: header, count: size)
            e.pointee.subtitle_header = copy
            e.pointee.subtitle_header_size = Int32(size)
        }
        try media { () throws(MediaError) in try encoder.check(LibAVCodec.openCodec(e, codec, nil), "opening the subtitle encoder", display) }
    }

    /// The text of `packet` in the target codec, into `packet` itself (its times untouched);
    /// false when the cue holds no text (an empty cue, such as mov_text's gap samples).
    func convert(_ packet: UnsafeMutablePointer<AVPacket>) throws(ExportError) -> Bool {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let decoded = LibAVCodec.decodeSubtitle(decoder.pointer, &subtitle, &got, packet)
        guard decoded >= 0 else { throw .av(path: display, AVFailure(code: decoded, operation: "reading a subtitle")) }
        guard got != 0 else { return false }
        defer { LibAVCodec.freeSubtitle(&subtitle) }
        guard subtitle.num_rects > 0 else { return false }
        subtitle.start_display_time = 0
        subtitle.end_display_time = UInt32(clamping: max(0, packet.pointee.duration))
        let size = buffer.withUnsafeMutableBufferPointer { bytes in
            LibAVCodec.encodeSubtitle(encoder.pointer, bytes.baseAddress, Int32(bytes.count), &subtitle)
        }
        guard size >= 0 else { throw .av(path: display, AVFailure(code: size, operation: "writing a subtitle")) }
        guard size > 0 else { return false }
        let (pts, duration) = (packet.pointee.pts, packet.pointee.duration)
        LibAVCodec.packetUnref(packet)
        let made = LibAVCodec.newPacket(packet, size)
        guard made >= 0 else { throw .av(path: display, AVFailure(code: made, operation: "allocating a subtitle")) }
        buffer.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: Int(size)) }
        packet.pointee.pts = pts
        packet.pointee.dts = pts
        packet.pointee.duration = duration
        return true
    }
}
