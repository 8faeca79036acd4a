import CFFmpeg
@testable import struct Media.AVLibraries
@testable import enum Media.LibAV
import Testing

/// Media opens libavformat and libavcodec at run time (see AVLibraries). This test target
/// links them, so each function type must accept the header's declaration (checked when this
/// compiles), and each looked-up function must be the very one the linker binds.
@Suite struct AVLibrariesTests {
    func address<F>(_ function: F) -> UnsafeRawPointer { unsafeBitCast(function, to: UnsafeRawPointer.self) }

    @Test func theOpenedFunctionsAreTheDeclaredOnes() throws {
        try LibAV.load()
        let library = AVLibraries.loaded
        let openInput: AVLibraries.OpenInput = avformat_open_input
        let closeInput: AVLibraries.CloseInput = avformat_close_input
        let findStreamInfo: AVLibraries.FindStreamInfo = avformat_find_stream_info
        let findBestStream: AVLibraries.FindBestStream = av_find_best_stream
        let findInputFormat: AVLibraries.FindInputFormat = av_find_input_format
        let guessFormat: AVLibraries.GuessFormat = av_guess_format
        let queryCodec: AVLibraries.QueryCodec = avformat_query_codec
        let codecGetID: AVLibraries.CodecGetID = av_codec_get_id
        let codecGetTag2: AVLibraries.CodecGetTag2 = av_codec_get_tag2
        let readFrame: AVLibraries.ReadFrame = av_read_frame
        let seekFrame: AVLibraries.SeekFrame = av_seek_frame
        let seekFile: AVLibraries.SeekFile = avformat_seek_file
        let indexEntriesCount: AVLibraries.IndexEntriesCount = avformat_index_get_entries_count
        let indexEntry: AVLibraries.IndexEntry = avformat_index_get_entry
        let streamGetSideData: AVLibraries.StreamGetSideData = av_stream_get_side_data
        let streamNewSideData: AVLibraries.StreamNewSideData = av_stream_new_side_data
        let allocOutputContext: AVLibraries.AllocOutputContext = avformat_alloc_output_context2
        let freeFormatContext: AVLibraries.FreeFormatContext = avformat_free_context
        let newStream: AVLibraries.NewStream = avformat_new_stream
        let writeHeader: AVLibraries.WriteHeader = avformat_write_header
        let interleavedWriteFrame: AVLibraries.InterleavedWriteFrame = av_interleaved_write_frame
        let writeTrailer: AVLibraries.WriteTrailer = av_write_trailer
        let ioOpen: AVLibraries.IoOpen = avio_open
        let ioClose: AVLibraries.IoClose = avio_closep
        let packetAlloc: AVLibraries.PacketAlloc = av_packet_alloc
        let packetFree: AVLibraries.PacketFree = av_packet_free
        let packetMoveRef: AVLibraries.PacketMoveRef = av_packet_move_ref
        let packetRescaleTS: AVLibraries.PacketRescaleTS = av_packet_rescale_ts
        let packetUnref: AVLibraries.PacketUnref = av_packet_unref
        let packetRef: AVLibraries.PacketRef = av_packet_ref
        let newPacket: AVLibraries.NewPacket = av_new_packet
        let packetNewSideData: AVLibraries.PacketNewSideData = av_packet_new_side_data
        let decodeSubtitle: AVLibraries.DecodeSubtitle = avcodec_decode_subtitle2
        let encodeSubtitle: AVLibraries.EncodeSubtitle = avcodec_encode_subtitle
        let freeSubtitle: AVLibraries.FreeSubtitle = avsubtitle_free
        let allocCodecContext: AVLibraries.AllocCodecContext = avcodec_alloc_context3
        let freeCodecContext: AVLibraries.FreeCodecContext = avcodec_free_context
        let openCodec: AVLibraries.OpenCodec = avcodec_open2
        let descriptor: AVLibraries.Descriptor = avcodec_descriptor_get
        let findDecoder: AVLibraries.FindDecoder = avcodec_find_decoder
        let findEncoder: AVLibraries.FindEncoder = avcodec_find_encoder
        let findEncoderByName: AVLibraries.FindEncoderByName = avcodec_find_encoder_by_name
        let findDecoderByName: AVLibraries.FindDecoderByName = avcodec_find_decoder_by_name
        let flushBuffers: AVLibraries.FlushBuffers = avcodec_flush_buffers
        let codecName: AVLibraries.CodecName = avcodec_get_name
        let profileName: AVLibraries.ProfileName = avcodec_profile_name
        let parametersAlloc: AVLibraries.ParametersAlloc = avcodec_parameters_alloc
        let parametersFree: AVLibraries.ParametersFree = avcodec_parameters_free
        let parametersCopy: AVLibraries.ParametersCopy = avcodec_parameters_copy
        let parametersFromContext: AVLibraries.ParametersFromContext = avcodec_parameters_from_context
        let parametersToContext: AVLibraries.ParametersToContext = avcodec_parameters_to_context
        let parserInit: AVLibraries.ParserInit = av_parser_init
        let parserParse2: AVLibraries.ParserParse2 = av_parser_parse2
        let parserClose: AVLibraries.ParserClose = av_parser_close
        let sendPacket: AVLibraries.SendPacket = avcodec_send_packet
        let receiveFrame: AVLibraries.ReceiveFrame = avcodec_receive_frame
        let sendFrame: AVLibraries.SendFrame = avcodec_send_frame
        let receivePacket: AVLibraries.ReceivePacket = avcodec_receive_packet
        #expect(address(library.openInput) == address(openInput), "avformat_open_input")
        #expect(address(library.closeInput) == address(closeInput), "avformat_close_input")
        #expect(address(library.findStreamInfo) == address(findStreamInfo), "avformat_find_stream_info")
        #expect(address(library.findBestStream) == address(findBestStream), "av_find_best_stream")
        #expect(address(library.findInputFormat) == address(findInputFormat), "av_find_input_format")
        #expect(address(library.guessFormat) == address(guessFormat), "av_guess_format")
        #expect(address(library.queryCodec) == address(queryCodec), "avformat_query_codec")
        #expect(address(library.codecGetID) == address(codecGetID), "av_codec_get_id")
        #expect(address(library.codecGetTag2) == address(codecGetTag2), "av_codec_get_tag2")
        #expect(address(library.readFrame) == address(readFrame), "av_read_frame")
        #expect(address(library.seekFrame) == address(seekFrame), "av_seek_frame")
        #expect(address(library.seekFile) == address(seekFile), "avformat_seek_file")
        #expect(address(library.indexEntriesCount) == address(indexEntriesCount), "avformat_index_get_entries_count")
        #expect(address(library.indexEntry) == address(indexEntry), "avformat_index_get_entry")
        #expect(address(library.streamGetSideData) == address(streamGetSideData), "av_stream_get_side_data")
        #expect(address(library.streamNewSideData) == address(streamNewSideData), "av_stream_new_side_data")
        #expect(address(library.allocOutputContext) == address(allocOutputContext), "avformat_alloc_output_context2")
        #expect(address(library.freeFormatContext) == address(freeFormatContext), "avformat_free_context")
        #expect(address(library.newStream) == address(newStream), "avformat_new_stream")
        #expect(address(library.writeHeader) == address(writeHeader), "avformat_write_header")
        #expect(address(library.interleavedWriteFrame) == address(interleavedWriteFrame), "av_interleaved_write_frame")
        #expect(address(library.writeTrailer) == address(writeTrailer), "av_write_trailer")
        #expect(address(library.ioOpen) == address(ioOpen), "avio_open")
        #expect(address(library.ioClose) == address(ioClose), "avio_closep")
        #expect(address(library.packetAlloc) == address(packetAlloc), "av_packet_alloc")
        #expect(address(library.packetFree) == address(packetFree), "av_packet_free")
        #expect(address(library.packetMoveRef) == address(packetMoveRef), "av_packet_move_ref")
        #expect(address(library.packetRescaleTS) == address(packetRescaleTS), "av_packet_rescale_ts")
        #expect(address(library.packetUnref) == address(packetUnref), "av_packet_unref")
        #expect(address(library.packetRef) == address(packetRef), "av_packet_ref")
        #expect(address(library.newPacket) == address(newPacket), "av_new_packet")
        #expect(address(library.packetNewSideData) == address(packetNewSideData), "av_packet_new_side_data")
        #expect(address(library.decodeSubtitle) == address(decodeSubtitle), "avcodec_decode_subtitle2")
        #expect(address(library.encodeSubtitle) == address(encodeSubtitle), "avcodec_encode_subtitle")
        #expect(address(library.freeSubtitle) == address(freeSubtitle), "avsubtitle_free")
        #expect(address(library.allocCodecContext) == address(allocCodecContext), "avcodec_alloc_context3")
        #expect(address(library.freeCodecContext) == address(freeCodecContext), "avcodec_free_context")
        #expect(address(library.openCodec) == address(openCodec), "avcodec_open2")
        #expect(address(library.descriptor) == address(descriptor), "avcodec_descriptor_get")
        #expect(address(library.findDecoder) == address(findDecoder), "avcodec_find_decoder")
        #expect(address(library.findEncoder) == address(findEncoder), "avcodec_find_encoder")
        #expect(address(library.findEncoderByName) == address(findEncoderByName), "avcodec_find_encoder_by_name")
        #expect(address(library.findDecoderByName) == address(findDecoderByName), "avcodec_find_decoder_by_name")
        #expect(address(library.flushBuffers) == address(flushBuffers), "avcodec_flush_buffers")
        #expect(address(library.codecName) == address(codecName), "avcodec_get_name")
        #expect(address(library.profileName) == address(profileName), "avcodec_profile_name")
        #expect(address(library.parametersAlloc) == address(parametersAlloc), "avcodec_parameters_alloc")
        #expect(address(library.parametersFree) == address(parametersFree), "avcodec_parameters_free")
        #expect(address(library.parametersCopy) == address(parametersCopy), "avcodec_parameters_copy")
        #expect(address(library.parametersFromContext) == address(parametersFromContext), "avcodec_parameters_from_context")
        #expect(address(library.parametersToContext) == address(parametersToContext), "avcodec_parameters_to_context")
        #expect(address(library.parserInit) == address(parserInit), "av_parser_init")
        #expect(address(library.parserParse2) == address(parserParse2), "av_parser_parse2")
        #expect(address(library.parserClose) == address(parserClose), "av_parser_close")
        #expect(address(library.sendPacket) == address(sendPacket), "avcodec_send_packet")
        #expect(address(library.receiveFrame) == address(receiveFrame), "avcodec_receive_frame")
        #expect(address(library.sendFrame) == address(sendFrame), "avcodec_send_frame")
        #expect(address(library.receivePacket) == address(receivePacket), "avcodec_receive_packet")
        #expect(library.codecName(AV_CODEC_ID_H264).map { String(cString: $0) } == "h264")
    }
}
