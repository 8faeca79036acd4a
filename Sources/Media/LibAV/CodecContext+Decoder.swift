internal import CFFmpeg

/// What Export asks of Media's ``CodecContext`` in its own errors: a decoder for a stream (on
/// Reading's ``StreamView``, and moving to Media with it) and a libav return code checked.
extension CodecContext {
    /// A decoder for `stream`, opened and ready; `errorRecognition` is libavcodec's
    /// `err_recognition` (`AV_EF_EXPLODE` makes any damage it notices an error).
    package static func decoder(for stream: StreamView, threads: Int = 0, errorRecognition: Int32 = 0) throws(MediaError) -> CodecContext {
        let parameters = stream.parameters
        // VP8/VP9 alpha is decoded by libvpx only (see SourceAlpha).
        let libvpx = SourceAlpha.libvpxDecoder(for: stream).flatMap { LibAVCodec.findDecoderByName($0) }
        guard let codec = libvpx ?? LibAVCodec.findDecoder(parameters.pointee.codec_id) else {
            throw .notMedia(path: stream.owner.path, reason: "no decoder for \(String(cString: LibAVCodec.codecName(parameters.pointee.codec_id)))")
        }
        let context = try CodecContext(codec: codec)
        try context.check(LibAVCodec.parametersToContext(context.pointer, parameters), "configuring the decoder", stream.owner.path)
        context.pointer.pointee.pkt_timebase = stream.pointer.pointee.time_base
        context.pointer.pointee.thread_count = Int32(threads)
        if errorRecognition != 0 { context.pointer.pointee.err_recognition = errorRecognition }
        try context.check(LibAVCodec.openCodec(context.pointer, codec, nil), "opening the decoder", stream.owner.path)
        return context
    }

    package func check(_ code: Int32, _ operation: String, _ path: String) throws(MediaError) {
        if code < 0 { throw .av(path: path, AVFailure(code: code, operation: operation)) }
    }
}
