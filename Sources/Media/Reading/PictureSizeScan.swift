import Composition
internal import CFFmpeg

/// Finds where a video stream changes picture size mid-file from its packets, through
/// libavcodec's parser (it reads the parameter sets, decoding nothing): fed every packet of the
/// stream, it keeps each size with the time it starts. Only the containers where a size can
/// change (transport and program streams, raw elementary streams) are scanned.
final class PictureSizeScan {
    private let parser: UnsafeMutablePointer<AVCodecParserContext>?
    private let context: CodecContext?
    private let timeBase: AVRational
    private let origin: Int64
    private var last: (Int32, Int32)?
    private(set) var found: [VideoSizeChange] = []

    /// Demuxers whose video may change size mid-stream.
    static let changing: Set = ["mpegts", "mpegtsraw", "mpeg", "h264", "hevc", "mpegvideo"]

    /// A scan of `stream` of `input`, whose times count from the container's start; nil for a
    /// container that states one size, or a codec libavcodec has no parser for.
    init?(_ input: InputFormatContext, stream: Int) {
        guard Self.changing.contains(String(cString: input.pointer.pointee.iformat.pointee.name)) else { return nil }
        let s = input.stream(stream)
        guard let parser = LibAVCodec.parserInit(Int32(s.parameters.pointee.codec_id.rawValue)),
              let codec = LibAVCodec.findDecoder(s.parameters.pointee.codec_id), let context = try? CodecContext(codec: codec),
              LibAVCodec.parametersToContext(context.pointer, s.parameters) >= 0 else { return nil }
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        self.parser = parser
        self.context = context
        timeBase = s.pointer.pointee.time_base
        let start = input.pointer.pointee.start_time
        origin = start == sp_av_nopts_value() ? 0 : start
    }

    deinit { LibAVCodec.parserClose(parser) }

    /// Reads `packet`'s parameter sets, if it has any.
    func add(_ packet: AVPacket) {
        guard let parser, let data = packet.data, packet.size > 0 else { return }
        var out: UnsafeMutablePointer<UInt8>?
        var outSize: Int32 = 0
        LibAVCodec.parserParse2(parser, context?.pointer, &out, &outSize, data, packet.size, packet.pts, packet.dts, packet.pos)
        let size = (parser.pointee.width, parser.pointee.height)
        guard size.0 > 0, size.1 > 0, last.map({ $0 != size }) ?? true else { return }
        last = size
        let pts = packet.pts != sp_av_nopts_value() ? packet.pts : packet.dts
        let seconds = pts == sp_av_nopts_value() ? (found.last?.time ?? 0)
            : Double(pts) * Double(timeBase.num) / Double(timeBase.den) - Double(origin) / Double(sp_av_time_base())
        found.append(VideoSizeChange(time: max(0, seconds), width: Int(size.0), height: Int(size.1)))
    }

    /// The sizes, when there is more than one.
    var changes: [VideoSizeChange]? { found.count > 1 ? found : nil }
}
