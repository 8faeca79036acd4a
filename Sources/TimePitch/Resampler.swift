import Composition
internal import CFFmpeg

/// Varispeed through libswresample: plays audio at `rate` by resampling it, so pitch follows
/// the rate as on tape. Owns a `SwrContext`.
final class Resampler {
    private var context: OpaquePointer?
    let channels: Int

    /// Input frames are consumed as if at `rate × sampleRate` and produced at `sampleRate`:
    /// rate 2 halves the length and raises the pitch an octave.
    init(channels: Int, rate: Rational, sampleRate: Int) throws(TimePitchError) {
        self.channels = channels
        guard case let (inRate, outRate)? = Self.rates(sampleRate: sampleRate, rate: rate) else {
            throw .engine("libswresample cannot play \(sampleRate) Hz audio at rate \(rate.readable): the rates do not fit its 32-bit integers")
        }
        var outLayout = AVChannelLayout(), inLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(channels))
        av_channel_layout_default(&inLayout, Int32(channels))
        defer { av_channel_layout_uninit(&outLayout); av_channel_layout_uninit(&inLayout) }
        var swr: OpaquePointer?
        let allocated = swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLTP, outRate,
                                            &inLayout, AV_SAMPLE_FMT_FLTP, inRate, 0, nil)
        guard allocated >= 0, let swr else { throw .engine("libswresample could not be set up for rate \(rate.readable)") }
        context = swr
        // A longer, steeper filter than the default: varispeed is heard, not just previewed.
        av_opt_set_int(UnsafeMutableRawPointer(swr), "filter_size", 64, 0)
        av_opt_set_int(UnsafeMutableRawPointer(swr), "phase_shift", 12, 0)
        av_opt_set_double(UnsafeMutableRawPointer(swr), "cutoff", 0.95, 0)
        guard swr_init(swr) >= 0 else { throw .engine("libswresample could not start for rate \(rate.readable)") }
    }

    deinit { swr_free(&context) }

    /// libswresample's input and output rates for playing `sampleRate` audio at `rate`: exact
    /// (`sampleRate × numerator` in, `sampleRate × denominator` out) when both fit its `int`s,
    /// else the nearest whole output rate for the sample rate in; nil when even that does not
    /// fit (every product is checked, so no header's rate can trap).
    static func rates(sampleRate: Int, rate: Rational) -> (in: Int32, out: Int32)? {
        let base = Int64(sampleRate)
        let (inRate, inOverflow) = base.multipliedReportingOverflow(by: rate.numerator)
        let (outRate, outOverflow) = base.multipliedReportingOverflow(by: rate.denominator)
        if !inOverflow, !outOverflow, let a = Int32(exactly: inRate), let b = Int32(exactly: outRate), a > 0, b > 0 {
            return (a, b)
        }
        let approximate = (Double(sampleRate) / rate.doubleValue).rounded()
        guard let a = Int32(exactly: base), a > 0, approximate.isFinite, approximate >= 1,
              approximate <= Double(Int32.max) else { return nil }
        return (a, Int32(approximate))
    }

    private var inBuffer: PlanarBuffer?
    private var outBuffer: PlanarBuffer?

    /// Converts `count` frames (or, with `flush`, what the filter still holds) and returns the
    /// output frames.
    func convert(_ samples: [[Float]], count: Int, flush: Bool) throws(TimePitchError) -> ([[Float]], Int) {
        let inBuffer = self.inBuffer ?? PlanarBuffer(channels: channels, capacity: max(count, 1))
        self.inBuffer = inBuffer
        if !flush { inBuffer.load(samples, count: count) }
        let capacity = Int(swr_get_out_samples(context, Int32(flush ? 0 : count))) + 64
        let outBuffer = self.outBuffer ?? PlanarBuffer(channels: channels, capacity: capacity)
        self.outBuffer = outBuffer
        outBuffer.reserve(capacity)
        let produced = outBuffer.table.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: channels) { out in
            inBuffer.table.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: channels) { inp in
                swr_convert(context, out, Int32(capacity), flush ? nil : inp, flush ? 0 : Int32(count))
            }
        }
        guard produced >= 0 else { throw .engine("libswresample failed while resampling") }
        return (outBuffer.copyOut(Int(produced)), Int(produced))
    }
}
