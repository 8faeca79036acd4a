import Foundation
package import CFFmpeg

/// Process-wide libav set-up. Libraries never print: libav's own logger is silenced, and every
/// failure reaches the caller as a return code turned into an error.
public enum LibAV {
    /// Opens libavformat and libavcodec (see ``AVLibraries``) and silences libav's logger.
    /// Everything that calls into those libraries runs after this: the contexts, packets and
    /// encoders whose initialisers start every reading and writing path call it first.
    package static func load() throws(MediaError) {
        _ = configured
        _ = try AVLibraries.shared.get()
    }

    /// Starts opening the libraries on a thread of their own and returns at once, for a
    /// command that will need them after other work (reading and checking its document):
    /// the loading, about 40 ms of mapping and relocating 130 shared libraries, then overlaps
    /// that work on a second core. The first ``load()`` afterwards waits for it to finish. A
    /// second call does nothing.
    public static func preload() {
        preloading.start { try? load() }
    }

    /// Waits for a ``preload()`` under way to finish (see ``BackgroundLoad``: the process must
    /// not exit while the libraries' constructors run on the other thread).
    public static func settle() {
        preloading.settle()
    }

    private static let preloading = BackgroundLoad()

    private static let configured: Void = {
        av_log_set_level(AV_LOG_QUIET)
    }()
}

/// libavformat and libavcodec, opened on first use instead of linked. Loading them with their
/// 130 dependencies (every codec library Debian builds FFmpeg with, TLS, SSH, Blu-ray, ZeroMQ
/// …) cost every slowpoke command about 35 ms at start-up, nine tenths of it, while
/// `slowpoke stretch` on WAV files and the editing commands need neither. libavutil,
/// libswresample and libswscale stay linked: together they load in about 2 ms.
///
/// The function types are those of the C declarations; a test linked against both libraries
/// checks each one against its header and each looked-up address against the one the linker
/// binds. The functions below this type, in ``LibAVFormat`` and ``LibAVCodec``, have the C
/// signatures under these fields' Swift names: declared under the C names, they would stand
/// beside CFFmpeg's own declarations in every module that imports both.
struct AVLibraries: @unchecked Sendable {
    // @unchecked: immutable C function pointers into libraries that are never closed.
    typealias OpenInput = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?, UnsafePointer<CChar>?, UnsafePointer<AVInputFormat>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias CloseInput = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?) -> Void
    typealias FindStreamInfo = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias FindBestStream = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, AVMediaType, Int32, Int32, UnsafeMutablePointer<UnsafePointer<AVCodec>?>?, Int32) -> Int32
    typealias FindInputFormat = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVInputFormat>?
    typealias GuessFormat = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> UnsafePointer<AVOutputFormat>?
    typealias QueryCodec = @convention(c) (UnsafePointer<AVOutputFormat>?, AVCodecID, Int32) -> Int32
    typealias CodecGetID = @convention(c) (UnsafePointer<OpaquePointer?>?, UInt32) -> AVCodecID
    typealias CodecGetTag2 = @convention(c) (UnsafePointer<OpaquePointer?>?, AVCodecID, UnsafeMutablePointer<UInt32>?) -> Int32
    typealias ReadFrame = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVPacket>?) -> Int32
    typealias SeekFrame = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, Int32, Int64, Int32) -> Int32
    typealias SeekFile = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, Int32, Int64, Int64, Int64, Int32) -> Int32
    typealias IndexEntriesCount = @convention(c) (UnsafePointer<AVStream>?) -> Int32
    typealias IndexEntry = @convention(c) (UnsafeMutablePointer<AVStream>?, Int32) -> UnsafePointer<AVIndexEntry>?
    typealias StreamGetSideData = @convention(c) (UnsafePointer<AVStream>?, AVPacketSideDataType, UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<UInt8>?
    typealias StreamNewSideData = @convention(c) (UnsafeMutablePointer<AVStream>?, AVPacketSideDataType, Int) -> UnsafeMutablePointer<UInt8>?
    typealias AllocOutputContext = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?, UnsafePointer<AVOutputFormat>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    typealias FreeFormatContext = @convention(c) (UnsafeMutablePointer<AVFormatContext>?) -> Void
    typealias NewStream = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafePointer<AVCodec>?) -> UnsafeMutablePointer<AVStream>?
    typealias WriteHeader = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias InterleavedWriteFrame = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVPacket>?) -> Int32
    typealias WriteTrailer = @convention(c) (UnsafeMutablePointer<AVFormatContext>?) -> Int32
    typealias IoOpen = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?, UnsafePointer<CChar>?, Int32) -> Int32
    typealias IoClose = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?) -> Int32
    typealias PacketAlloc = @convention(c) () -> UnsafeMutablePointer<AVPacket>?
    typealias PacketFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVPacket>?>?) -> Void
    typealias PacketMoveRef = @convention(c) (UnsafeMutablePointer<AVPacket>?, UnsafeMutablePointer<AVPacket>?) -> Void
    typealias PacketRescaleTS = @convention(c) (UnsafeMutablePointer<AVPacket>?, AVRational, AVRational) -> Void
    typealias PacketUnref = @convention(c) (UnsafeMutablePointer<AVPacket>?) -> Void
    typealias PacketRef = @convention(c) (UnsafeMutablePointer<AVPacket>?, UnsafePointer<AVPacket>?) -> Int32
    typealias NewPacket = @convention(c) (UnsafeMutablePointer<AVPacket>?, Int32) -> Int32
    typealias PacketNewSideData = @convention(c) (UnsafeMutablePointer<AVPacket>?, AVPacketSideDataType, Int) -> UnsafeMutablePointer<UInt8>?
    typealias DecodeSubtitle = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<AVSubtitle>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<AVPacket>?) -> Int32
    typealias EncodeSubtitle = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<UInt8>?, Int32, UnsafePointer<AVSubtitle>?) -> Int32
    typealias FreeSubtitle = @convention(c) (UnsafeMutablePointer<AVSubtitle>?) -> Void
    typealias AllocCodecContext = @convention(c) (UnsafePointer<AVCodec>?) -> UnsafeMutablePointer<AVCodecContext>?
    typealias FreeCodecContext = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVCodecContext>?>?) -> Void
    typealias OpenCodec = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafePointer<AVCodec>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Descriptor = @convention(c) (AVCodecID) -> UnsafePointer<AVCodecDescriptor>?
    typealias FindDecoder = @convention(c) (AVCodecID) -> UnsafePointer<AVCodec>?
    typealias FindEncoder = @convention(c) (AVCodecID) -> UnsafePointer<AVCodec>?
    typealias FindEncoderByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVCodec>?
    typealias FindDecoderByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVCodec>?
    typealias FlushBuffers = @convention(c) (UnsafeMutablePointer<AVCodecContext>?) -> Void
    typealias CodecName = @convention(c) (AVCodecID) -> UnsafePointer<CChar>?
    typealias ProfileName = @convention(c) (AVCodecID, Int32) -> UnsafePointer<CChar>?
    typealias ParametersAlloc = @convention(c) () -> UnsafeMutablePointer<AVCodecParameters>?
    typealias ParametersFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVCodecParameters>?>?) -> Void
    typealias ParametersCopy = @convention(c) (UnsafeMutablePointer<AVCodecParameters>?, UnsafePointer<AVCodecParameters>?) -> Int32
    typealias ParametersFromContext = @convention(c) (UnsafeMutablePointer<AVCodecParameters>?, UnsafePointer<AVCodecContext>?) -> Int32
    typealias ParametersToContext = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafePointer<AVCodecParameters>?) -> Int32
    typealias ParserInit = @convention(c) (Int32) -> UnsafeMutablePointer<AVCodecParserContext>?
    typealias ParserParse2 = @convention(c) (UnsafeMutablePointer<AVCodecParserContext>?, UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32, Int64, Int64, Int64) -> Int32
    typealias ParserClose = @convention(c) (UnsafeMutablePointer<AVCodecParserContext>?) -> Void
    typealias SendPacket = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafePointer<AVPacket>?) -> Int32
    typealias ReceiveFrame = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32
    typealias SendFrame = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafePointer<AVFrame>?) -> Int32
    typealias ReceivePacket = @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<AVPacket>?) -> Int32

    let openInput: OpenInput
    let closeInput: CloseInput
    let findStreamInfo: FindStreamInfo
    let findBestStream: FindBestStream
    let findInputFormat: FindInputFormat
    let guessFormat: GuessFormat
    let queryCodec: QueryCodec
    let codecGetID: CodecGetID
    let codecGetTag2: CodecGetTag2
    let readFrame: ReadFrame
    let seekFrame: SeekFrame
    let seekFile: SeekFile
    let indexEntriesCount: IndexEntriesCount
    let indexEntry: IndexEntry
    let streamGetSideData: StreamGetSideData
    let streamNewSideData: StreamNewSideData
    let allocOutputContext: AllocOutputContext
    let freeFormatContext: FreeFormatContext
    let newStream: NewStream
    let writeHeader: WriteHeader
    let interleavedWriteFrame: InterleavedWriteFrame
    let writeTrailer: WriteTrailer
    let ioOpen: IoOpen
    let ioClose: IoClose
    let packetAlloc: PacketAlloc
    let packetFree: PacketFree
    let packetMoveRef: PacketMoveRef
    let packetRescaleTS: PacketRescaleTS
    let packetUnref: PacketUnref
    let packetRef: PacketRef
    let newPacket: NewPacket
    let packetNewSideData: PacketNewSideData
    let decodeSubtitle: DecodeSubtitle
    let encodeSubtitle: EncodeSubtitle
    let freeSubtitle: FreeSubtitle
    let allocCodecContext: AllocCodecContext
    let freeCodecContext: FreeCodecContext
    let openCodec: OpenCodec
    let descriptor: Descriptor
    let findDecoder: FindDecoder
    let findEncoder: FindEncoder
    let findEncoderByName: FindEncoderByName
    let findDecoderByName: FindDecoderByName
    let flushBuffers: FlushBuffers
    let codecName: CodecName
    let profileName: ProfileName
    let parametersAlloc: ParametersAlloc
    let parametersFree: ParametersFree
    let parametersCopy: ParametersCopy
    let parametersFromContext: ParametersFromContext
    let parametersToContext: ParametersToContext
    let parserInit: ParserInit
    let parserParse2: ParserParse2
    let parserClose: ParserClose
    let sendPacket: SendPacket
    let receiveFrame: ReceiveFrame
    let sendFrame: SendFrame
    let receivePacket: ReceivePacket

    /// The libraries' files: the major versions the headers describe.
    static let fileNames = (avformat: "libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)",
                            avcodec: "libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)")

    /// The libraries, loaded once; or why they cannot be.
    static let shared = Result { () throws(MediaError) in try AVLibraries() }

    /// The loaded functions, for code that runs after ``LibAV/load()``.
    static var loaded: AVLibraries {
        guard case .success(let libraries) = shared else { preconditionFailure("libav is used before LibAV.load() opened it") }
        return libraries
    }

    private init() throws(MediaError) {
        func open(_ name: String) throws(MediaError) -> SharedLibrary {
            try SharedLibrary(name, cannotLoad: { "slowpoke needs \(name) (install libavformat59 and libavcodec59), which cannot be loaded: \($0)" })
        }
        let avformat = try open(Self.fileNames.avformat), avcodec = try open(Self.fileNames.avcodec)
        func symbol<F>(_ library: SharedLibrary, _ name: String) throws(MediaError) -> F {
            try library.symbol(name)
        }
        openInput = try symbol(avformat, "avformat_open_input")
        closeInput = try symbol(avformat, "avformat_close_input")
        findStreamInfo = try symbol(avformat, "avformat_find_stream_info")
        findBestStream = try symbol(avformat, "av_find_best_stream")
        findInputFormat = try symbol(avformat, "av_find_input_format")
        guessFormat = try symbol(avformat, "av_guess_format")
        queryCodec = try symbol(avformat, "avformat_query_codec")
        codecGetID = try symbol(avformat, "av_codec_get_id")
        codecGetTag2 = try symbol(avformat, "av_codec_get_tag2")
        readFrame = try symbol(avformat, "av_read_frame")
        seekFrame = try symbol(avformat, "av_seek_frame")
        seekFile = try symbol(avformat, "avformat_seek_file")
        indexEntriesCount = try symbol(avformat, "avformat_index_get_entries_count")
        indexEntry = try symbol(avformat, "avformat_index_get_entry")
        streamGetSideData = try symbol(avformat, "av_stream_get_side_data")
        streamNewSideData = try symbol(avformat, "av_stream_new_side_data")
        allocOutputContext = try symbol(avformat, "avformat_alloc_output_context2")
        freeFormatContext = try symbol(avformat, "avformat_free_context")
        newStream = try symbol(avformat, "avformat_new_stream")
        writeHeader = try symbol(avformat, "avformat_write_header")
        interleavedWriteFrame = try symbol(avformat, "av_interleaved_write_frame")
        writeTrailer = try symbol(avformat, "av_write_trailer")
        ioOpen = try symbol(avformat, "avio_open")
        ioClose = try symbol(avformat, "avio_closep")
        packetAlloc = try symbol(avcodec, "av_packet_alloc")
        packetFree = try symbol(avcodec, "av_packet_free")
        packetMoveRef = try symbol(avcodec, "av_packet_move_ref")
        packetRescaleTS = try symbol(avcodec, "av_packet_rescale_ts")
        packetUnref = try symbol(avcodec, "av_packet_unref")
        packetRef = try symbol(avcodec, "av_packet_ref")
        newPacket = try symbol(avcodec, "av_new_packet")
        packetNewSideData = try symbol(avcodec, "av_packet_new_side_data")
        decodeSubtitle = try symbol(avcodec, "avcodec_decode_subtitle2")
        encodeSubtitle = try symbol(avcodec, "avcodec_encode_subtitle")
        freeSubtitle = try symbol(avcodec, "avsubtitle_free")
        allocCodecContext = try symbol(avcodec, "avcodec_alloc_context3")
        freeCodecContext = try symbol(avcodec, "avcodec_free_context")
        openCodec = try symbol(avcodec, "avcodec_open2")
        descriptor = try symbol(avcodec, "avcodec_descriptor_get")
        findDecoder = try symbol(avcodec, "avcodec_find_decoder")
        findEncoder = try symbol(avcodec, "avcodec_find_encoder")
        findEncoderByName = try symbol(avcodec, "avcodec_find_encoder_by_name")
        findDecoderByName = try symbol(avcodec, "avcodec_find_decoder_by_name")
        flushBuffers = try symbol(avcodec, "avcodec_flush_buffers")
        codecName = try symbol(avcodec, "avcodec_get_name")
        profileName = try symbol(avcodec, "avcodec_profile_name")
        parametersAlloc = try symbol(avcodec, "avcodec_parameters_alloc")
        parametersFree = try symbol(avcodec, "avcodec_parameters_free")
        parametersCopy = try symbol(avcodec, "avcodec_parameters_copy")
        parametersFromContext = try symbol(avcodec, "avcodec_parameters_from_context")
        parametersToContext = try symbol(avcodec, "avcodec_parameters_to_context")
        parserInit = try symbol(avcodec, "av_parser_init")
        parserParse2 = try symbol(avcodec, "av_parser_parse2")
        parserClose = try symbol(avcodec, "av_parser_close")
        sendPacket = try symbol(avcodec, "avcodec_send_packet")
        receiveFrame = try symbol(avcodec, "avcodec_receive_frame")
        sendFrame = try symbol(avcodec, "avcodec_send_frame")
        receivePacket = try symbol(avcodec, "avcodec_receive_packet")
    }
}

// The libavformat and libavcodec functions slowpoke calls, under the Swift names of
// AVLibraries' fields and with the C signatures (see AVLibraries).
/// Resolved once, on the first call, which comes after LibAV.load() opened the libraries.
private let av = AVLibraries.loaded

/// libavformat's functions: `LibAVFormat.openInput` is `avformat_open_input`, and so on (see
/// ``AVLibraries`` for each C name).
package enum LibAVFormat {
    @discardableResult static func openInput(_ ps: UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?, _ url: UnsafePointer<CChar>?, _ fmt: UnsafePointer<AVInputFormat>?, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 { av.openInput(ps, url, fmt, options) }
    static func closeInput(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?) { av.closeInput(s) }
    @discardableResult static func findStreamInfo(_ ic: UnsafeMutablePointer<AVFormatContext>?, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 { av.findStreamInfo(ic, options) }
    @discardableResult static func findBestStream(_ ic: UnsafeMutablePointer<AVFormatContext>?, _ type: AVMediaType, _ wanted: Int32, _ related: Int32, _ decoder: UnsafeMutablePointer<UnsafePointer<AVCodec>?>?, _ flags: Int32) -> Int32 { av.findBestStream(ic, type, wanted, related, decoder, flags) }
    @discardableResult static func findInputFormat(_ name: UnsafePointer<CChar>?) -> UnsafePointer<AVInputFormat>! { av.findInputFormat(name) }
    package static func queryCodec(_ ofmt: UnsafePointer<AVOutputFormat>?, _ codec: AVCodecID, _ compliance: Int32) -> Int32 { av.queryCodec(ofmt, codec, compliance) }
    package static func codecGetID(_ tags: UnsafePointer<OpaquePointer?>?, _ tag: UInt32) -> AVCodecID { av.codecGetID(tags, tag) }
    package static func codecGetTag2(_ tags: UnsafePointer<OpaquePointer?>?, _ id: AVCodecID, _ tag: UnsafeMutablePointer<UInt32>?) -> Int32 { av.codecGetTag2(tags, id, tag) }
    @discardableResult static func guessFormat(_ name: UnsafePointer<CChar>?, _ filename: UnsafePointer<CChar>?, _ mime: UnsafePointer<CChar>?) -> UnsafePointer<AVOutputFormat>! { av.guessFormat(name, filename, mime) }
    @discardableResult static func readFrame(_ s: UnsafeMutablePointer<AVFormatContext>?, _ pkt: UnsafeMutablePointer<AVPacket>?) -> Int32 { av.readFrame(s, pkt) }
    @discardableResult package static func seekFrame(_ s: UnsafeMutablePointer<AVFormatContext>?, _ stream: Int32, _ timestamp: Int64, _ flags: Int32) -> Int32 { av.seekFrame(s, stream, timestamp, flags) }
    @discardableResult package static func seekFile(_ s: UnsafeMutablePointer<AVFormatContext>?, _ stream: Int32, _ minTS: Int64, _ ts: Int64, _ maxTS: Int64, _ flags: Int32) -> Int32 { av.seekFile(s, stream, minTS, ts, maxTS, flags) }
    static func indexEntriesCount(_ st: UnsafePointer<AVStream>?) -> Int32 { av.indexEntriesCount(st) }
    static func indexEntry(_ st: UnsafeMutablePointer<AVStream>?, _ idx: Int32) -> UnsafePointer<AVIndexEntry>? { av.indexEntry(st, idx) }
    @discardableResult package static func streamGetSideData(_ stream: UnsafePointer<AVStream>?, _ type: AVPacketSideDataType, _ size: UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<UInt8>! { av.streamGetSideData(stream, type, size) }
    @discardableResult package static func streamNewSideData(_ stream: UnsafeMutablePointer<AVStream>?, _ type: AVPacketSideDataType, _ size: Int) -> UnsafeMutablePointer<UInt8>! { av.streamNewSideData(stream, type, size) }
    @discardableResult package static func allocOutputContext(_ ctx: UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?, _ oformat: UnsafePointer<AVOutputFormat>?, _ name: UnsafePointer<CChar>?, _ filename: UnsafePointer<CChar>?) -> Int32 { av.allocOutputContext(ctx, oformat, name, filename) }
    package static func freeFormatContext(_ s: UnsafeMutablePointer<AVFormatContext>?) { av.freeFormatContext(s) }
    @discardableResult package static func newStream(_ s: UnsafeMutablePointer<AVFormatContext>?, _ c: UnsafePointer<AVCodec>?) -> UnsafeMutablePointer<AVStream>! { av.newStream(s, c) }
    @discardableResult package static func writeHeader(_ s: UnsafeMutablePointer<AVFormatContext>?, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 { av.writeHeader(s, options) }
    @discardableResult package static func interleavedWriteFrame(_ s: UnsafeMutablePointer<AVFormatContext>?, _ pkt: UnsafeMutablePointer<AVPacket>?) -> Int32 { av.interleavedWriteFrame(s, pkt) }
    @discardableResult package static func writeTrailer(_ s: UnsafeMutablePointer<AVFormatContext>?) -> Int32 { av.writeTrailer(s) }
    @discardableResult package static func ioOpen(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?, _ url: UnsafePointer<CChar>?, _ flags: Int32) -> Int32 { av.ioOpen(s, url, flags) }
    @discardableResult package static func ioClose(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?) -> Int32 { av.ioClose(s) }
}

/// libavcodec's functions: `LibAVCodec.sendPacket` is `avcodec_send_packet`, and so on (see
/// ``AVLibraries`` for each C name).
package enum LibAVCodec {
    @discardableResult static func packetAlloc() -> UnsafeMutablePointer<AVPacket>! { av.packetAlloc() }
    static func packetFree(_ pkt: UnsafeMutablePointer<UnsafeMutablePointer<AVPacket>?>?) { av.packetFree(pkt) }
    package static func packetMoveRef(_ dst: UnsafeMutablePointer<AVPacket>?, _ src: UnsafeMutablePointer<AVPacket>?) { av.packetMoveRef(dst, src) }
    package static func packetRescaleTS(_ pkt: UnsafeMutablePointer<AVPacket>?, _ from: AVRational, _ to: AVRational) { av.packetRescaleTS(pkt, from, to) }
    package static func packetUnref(_ pkt: UnsafeMutablePointer<AVPacket>?) { av.packetUnref(pkt) }
    @discardableResult package static func packetRef(_ dst: UnsafeMutablePointer<AVPacket>?, _ src: UnsafePointer<AVPacket>?) -> Int32 { av.packetRef(dst, src) }
    package static func packetNewSideData(_ pkt: UnsafeMutablePointer<AVPacket>?, _ type: AVPacketSideDataType, _ size: Int) -> UnsafeMutablePointer<UInt8>? { av.packetNewSideData(pkt, type, size) }
    @discardableResult package static func newPacket(_ pkt: UnsafeMutablePointer<AVPacket>?, _ size: Int32) -> Int32 { av.newPacket(pkt, size) }
    @discardableResult package static func decodeSubtitle(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ sub: UnsafeMutablePointer<AVSubtitle>?, _ gotSub: UnsafeMutablePointer<Int32>?, _ avpkt: UnsafeMutablePointer<AVPacket>?) -> Int32 { av.decodeSubtitle(avctx, sub, gotSub, avpkt) }
    @discardableResult package static func encodeSubtitle(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ buf: UnsafeMutablePointer<UInt8>?, _ size: Int32, _ sub: UnsafePointer<AVSubtitle>?) -> Int32 { av.encodeSubtitle(avctx, buf, size, sub) }
    package static func freeSubtitle(_ sub: UnsafeMutablePointer<AVSubtitle>?) { av.freeSubtitle(sub) }
    @discardableResult static func allocCodecContext(_ codec: UnsafePointer<AVCodec>?) -> UnsafeMutablePointer<AVCodecContext>! { av.allocCodecContext(codec) }
    static func freeCodecContext(_ avctx: UnsafeMutablePointer<UnsafeMutablePointer<AVCodecContext>?>?) { av.freeCodecContext(avctx) }
    @discardableResult package static func openCodec(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ codec: UnsafePointer<AVCodec>?, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 { av.openCodec(avctx, codec, options) }
    @discardableResult package static func descriptor(_ id: AVCodecID) -> UnsafePointer<AVCodecDescriptor>! { av.descriptor(id) }
    @discardableResult package static func findDecoder(_ id: AVCodecID) -> UnsafePointer<AVCodec>! { av.findDecoder(id) }
    @discardableResult package static func findEncoder(_ id: AVCodecID) -> UnsafePointer<AVCodec>! { av.findEncoder(id) }
    @discardableResult package static func findEncoderByName(_ name: UnsafePointer<CChar>?) -> UnsafePointer<AVCodec>! { av.findEncoderByName(name) }
    @discardableResult static func findDecoderByName(_ name: UnsafePointer<CChar>?) -> UnsafePointer<AVCodec>! { av.findDecoderByName(name) }
    package static func flushBuffers(_ avctx: UnsafeMutablePointer<AVCodecContext>?) { av.flushBuffers(avctx) }
    @discardableResult package static func codecName(_ id: AVCodecID) -> UnsafePointer<CChar>! { av.codecName(id) }
    @discardableResult static func profileName(_ id: AVCodecID, _ profile: Int32) -> UnsafePointer<CChar>! { av.profileName(id, profile) }
    @discardableResult static func parametersAlloc() -> UnsafeMutablePointer<AVCodecParameters>! { av.parametersAlloc() }
    static func parametersFree(_ par: UnsafeMutablePointer<UnsafeMutablePointer<AVCodecParameters>?>?) { av.parametersFree(par) }
    @discardableResult package static func parametersCopy(_ dst: UnsafeMutablePointer<AVCodecParameters>?, _ src: UnsafePointer<AVCodecParameters>?) -> Int32 { av.parametersCopy(dst, src) }
    @discardableResult package static func parametersFromContext(_ par: UnsafeMutablePointer<AVCodecParameters>?, _ codec: UnsafePointer<AVCodecContext>?) -> Int32 { av.parametersFromContext(par, codec) }
    @discardableResult static func parametersToContext(_ codec: UnsafeMutablePointer<AVCodecContext>?, _ par: UnsafePointer<AVCodecParameters>?) -> Int32 { av.parametersToContext(codec, par) }
    @discardableResult static func sendPacket(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ pkt: UnsafePointer<AVPacket>?) -> Int32 { av.sendPacket(avctx, pkt) }
    @discardableResult static func receiveFrame(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ frame: UnsafeMutablePointer<AVFrame>?) -> Int32 { av.receiveFrame(avctx, frame) }
    @discardableResult package static func sendFrame(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ frame: UnsafePointer<AVFrame>?) -> Int32 { av.sendFrame(avctx, frame) }
    @discardableResult package static func receivePacket(_ avctx: UnsafeMutablePointer<AVCodecContext>?, _ pkt: UnsafeMutablePointer<AVPacket>?) -> Int32 { av.receivePacket(avctx, pkt) }
    @discardableResult static func parserInit(_ codecID: Int32) -> UnsafeMutablePointer<AVCodecParserContext>! { av.parserInit(codecID) }
    @discardableResult static func parserParse2(_ s: UnsafeMutablePointer<AVCodecParserContext>?, _ avctx: UnsafeMutablePointer<AVCodecContext>?, _ poutbuf: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ poutbufSize: UnsafeMutablePointer<Int32>?, _ buf: UnsafePointer<UInt8>?, _ bufSize: Int32, _ pts: Int64, _ dts: Int64, _ pos: Int64) -> Int32 { av.parserParse2(s, avctx, poutbuf, poutbufSize, buf, bufSize, pts, dts, pos) }
    static func parserClose(_ s: UnsafeMutablePointer<AVCodecParserContext>?) { av.parserClose(s) }
}
