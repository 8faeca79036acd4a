package import CFFmpeg

/// An owned `SwrContext` converting between sample formats, layouts and rates.
package final class SampleConverter {
    private var context: OpaquePointer?
    /// What it converts from: a decoded frame in another format needs another converter.
    private var inLayout = AVChannelLayout()
    private let inFormat: AVSampleFormat
    let inRate: Int32
    let outRate: Int32

    /// Converts to `outChannels` channels in the usual layout for their count (the input's own
    /// when the counts agree), or to `outLayout` when given: more channels are mixed down, fewer
    /// mixed up, by libswresample's matrix.
    package init(inLayout: AVChannelLayout, inFormat: AVSampleFormat, inRate: Int32, outChannels: Int32,
         outLayout: AVChannelLayout? = nil, outFormat: AVSampleFormat, outRate: Int32) throws(MediaError) {
        self.inFormat = inFormat
        self.inRate = inRate
        self.outRate = outRate
        var copy = inLayout
        av_channel_layout_copy(&self.inLayout, &copy)
        var source = AVChannelLayout()
        av_channel_layout_copy(&source, &copy)
        if source.order == AV_CHANNEL_ORDER_UNSPEC {
            // Unnamed layouts get the default for their channel count.
            let count = source.nb_channels
            av_channel_layout_uninit(&source)
            av_channel_layout_default(&source, count)
        }
        var target = AVChannelLayout()
        if var outLayout, outLayout.order != AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_copy(&target, &outLayout)
        } else if outChannels == source.nb_channels {
            av_channel_layout_copy(&target, &source)
        } else {
            av_channel_layout_default(&target, outChannels)
        }
        defer { av_channel_layout_uninit(&source); av_channel_layout_uninit(&target) }
        var swr: OpaquePointer?
        let made = swr_alloc_set_opts2(&swr, &target, outFormat, outRate, &source, inFormat, inRate, 0, nil)
        guard made >= 0, let swr else { throw .libav(AVFailure(code: made, operation: "setting up sample conversion")) }
        context = swr
        let opened = swr_init(swr)
        guard opened >= 0 else { throw .libav(AVFailure(code: opened, operation: "starting sample conversion")) }
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&inLayout)
    }

    /// Whether a frame laid out as `layout`, in `format` at `rate`, is what this converts from.
    func converts(from layout: AVChannelLayout, format: AVSampleFormat, rate: Int32) -> Bool {
        var layout = layout
        return format == inFormat && rate == inRate && av_channel_layout_compare(&inLayout, &layout) == 0
    }

    /// Input held back by the resampler, in output frames: the output of the next call starts
    /// that long before its input.
    var delay: Int64 { swr_get_delay(context, Int64(outRate)) }

    /// Converts `count` input frames from `input` (plane pointers) into `output`, with room for
    /// `capacity` frames; returns the frames written. A nil `input` drains what is held back.
    package func convert(output: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int,
                 input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) throws(MediaError) -> Int {
        let result = swr_convert(context, output, Int32(capacity), input, Int32(count))
        guard result >= 0 else { throw .libav(AVFailure(code: result, operation: "converting samples")) }
        return Int(result)
    }

    func outputCapacity(for count: Int) -> Int { Int(swr_get_out_samples(context, Int32(count))) }
}
