internal import CFFmpeg

/// An owned `AVCodecContext`, freed on deinit.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>

    init(codec: UnsafePointer<AVCodec>) throws(ExportError) {
        guard let context = avcodec_alloc_context3(codec) else {
            throw .av(path: "", AVFailure(code: sp_averror(ENOMEM), operation: "allocating a codec context"))
        }
        pointer = context
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&context)
    }

    /// A decoder for `stream`, opened and ready.
    static func decoder(for stream: StreamView, threads: Int = 0) throws(ExportError) -> CodecContext {
        let parameters = stream.parameters
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .notMedia(path: stream.owner.path, reason: "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))")
        }
        let context = try CodecContext(codec: codec)
        try context.check(avcodec_parameters_to_context(context.pointer, parameters), "configuring the decoder", stream.owner.path)
        context.pointer.pointee.pkt_timebase = stream.pointer.pointee.time_base
        context.pointer.pointee.thread_count = Int32(threads)
        try context.check(avcodec_open2(context.pointer, codec, nil), "opening the decoder", stream.owner.path)
        return context
    }

    func check(_ code: Int32, _ operation: String, _ path: String) throws(ExportError) {
        if code < 0 { throw .av(path: path, AVFailure(code: code, operation: operation)) }
    }

    /// What a send or receive call said, with EAGAIN and EOF as values rather than errors.
    enum Step: Equatable { case ok, needsInput, endOfStream }

    func send(_ packet: Packet?) -> Int32 { avcodec_send_packet(pointer, packet?.pointer) }

    func receive(_ frame: Frame) throws(AVFailure) -> Step {
        let result = avcodec_receive_frame(pointer, frame.pointer)
        if result == sp_averror_eagain() { return .needsInput }
        if result == sp_averror_eof() { return .endOfStream }
        if result < 0 { throw AVFailure(code: result, operation: "decoding") }
        return .ok
    }
}

/// An owned `AVFrame`.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(ExportError) {
        guard let frame = av_frame_alloc() else {
            throw .av(path: "", AVFailure(code: sp_averror(ENOMEM), operation: "allocating a frame"))
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}

/// An owned `SwrContext` converting between sample formats, layouts and rates.
final class SampleConverter {
    private var context: OpaquePointer?

    init(inLayout: AVChannelLayout, inFormat: AVSampleFormat, inRate: Int32,
         outChannels: Int32, outFormat: AVSampleFormat, outRate: Int32) throws(ExportError) {
        var source = AVChannelLayout()
        var copy = inLayout
        av_channel_layout_copy(&source, &copy)
        if source.order == AV_CHANNEL_ORDER_UNSPEC {
            // Unnamed layouts get the default for their channel count.
            let count = source.nb_channels
            av_channel_layout_uninit(&source)
            av_channel_layout_default(&source, count)
        }
        var target = AVChannelLayout()
        if outChannels == source.nb_channels { av_channel_layout_copy(&target, &source) } else { av_channel_layout_default(&target, outChannels) }
        defer { av_channel_layout_uninit(&source); av_channel_layout_uninit(&target) }
        var swr: OpaquePointer?
        let made = swr_alloc_set_opts2(&swr, &target, outFormat, outRate, &source, inFormat, inRate, 0, nil)
        guard made >= 0, let swr else { throw .av(path: "", AVFailure(code: made, operation: "setting up sample conversion")) }
        context = swr
        let opened = swr_init(swr)
        guard opened >= 0 else { throw .av(path: "", AVFailure(code: opened, operation: "starting sample conversion")) }
    }

    deinit { swr_free(&context) }

    /// Converts `count` input frames from `input` (plane pointers) into `output`, with room for
    /// `capacity` frames; returns the frames written.
    func convert(output: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int,
                 input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) throws(ExportError) -> Int {
        let result = swr_convert(context, output, Int32(capacity), input, Int32(count))
        guard result >= 0 else { throw .av(path: "", AVFailure(code: result, operation: "converting samples")) }
        return Int(result)
    }

    func outputCapacity(for count: Int) -> Int { Int(swr_get_out_samples(context, Int32(count))) }
}
