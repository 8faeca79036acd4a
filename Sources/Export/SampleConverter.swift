internal import CFFmpeg

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
