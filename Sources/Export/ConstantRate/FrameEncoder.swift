import Foundation
import Composition
internal import Bitstream
internal import CFFmpeg
import Media

/// An opened libx264, libx265, prores_ks or libvpx-vp9 encoder for the constant-rate export,
/// with the picture conversion into its pixel format. Frame k has timestamp k in a time base of 1/N.
final class FrameEncoder {
    let context: CodecContext
    let pixelFormat: AVPixelFormat
    /// The planes of `pixelFormat`.
    let layout: PlaneLayout
    let width: Int32
    let height: Int32
    private var scaler: OpaquePointer?
    private var scalerSource: (AVPixelFormat, Int32, Int32)?
    private let packet: Packet
    private let display: String
    /// HDR10+ messages of the frames sent and not yet out of the encoder, by output frame;
    /// only HEVC carries them.
    private var dynamicHDR: [Int64: HDR10PlusSEI] = [:]
    private let carriesDynamicHDR: Bool

    init(settings: EncoderSettings, source: UnsafeMutablePointer<AVCodecParameters>, sampleAspectRatio: AVRational,
         fps: Rational, globalHeader: Bool, progressive: Bool = false, display: String) throws {
        self.display = display
        carriesDynamicHDR = settings.codec == .hevc
        try LibAV.load()
        guard let codec = LibAVCodec.findEncoderByName(settings.codec.encoderName) else {
            throw ExportError.unsupported("this libavcodec has no \(settings.codec.encoderName) encoder, so it cannot encode \(settings.codec.displayName)")
        }
        context = try CodecContext(codec: codec)
        let c = context.pointer
        width = source.pointee.width
        height = source.pointee.height
        pixelFormat = av_get_pix_fmt(settings.pixelFormatName)
        layout = PlaneLayout(pixelFormat)
        c.pointee.width = width
        c.pointee.height = height
        c.pointee.pix_fmt = pixelFormat
        c.pointee.time_base = AVRational(num: Int32(fps.denominator), den: Int32(fps.numerator))
        c.pointee.framerate = AVRational(num: Int32(fps.numerator), den: Int32(fps.denominator))
        c.pointee.sample_aspect_ratio = sampleAspectRatio.num > 0 ? sampleAspectRatio : source.pointee.sample_aspect_ratio
        c.pointee.gop_size = Int32(settings.gopLength)
        c.pointee.color_primaries = source.pointee.color_primaries
        c.pointee.color_trc = source.pointee.color_trc
        c.pointee.colorspace = source.pointee.color_space
        c.pointee.color_range = source.pointee.color_range == AVCOL_RANGE_JPEG ? AVCOL_RANGE_MPEG : source.pointee.color_range
        c.pointee.chroma_sample_location = source.pointee.chroma_location
        if settings.maxBitRate > 0 {
            c.pointee.rc_max_rate = Int64(settings.maxBitRate) * 1000
            c.pointee.rc_buffer_size = Int32(settings.bufferSize * 1000)
        }
        c.pointee.thread_count = Int32(Self.threadCount())
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // Deinterlaced pictures are flagged progressive; other sources keep libavcodec's default.
        if progressive { c.pointee.field_order = AV_FIELD_PROGRESSIVE }
        // libvpx's constant-quality mode: a CRF and no target bit rate.
        if settings.codec == .vp9 { c.pointee.bit_rate = 0 }
        var options = Self.options(for: settings)
        defer { av_dict_free(&options) }
        let opened = LibAVCodec.openCodec(c, codec, &options)
        guard opened >= 0 else {
            throw ExportError.av(path: display, AVFailure(code: opened, operation: "opening the \(settings.codec.encoderName) encoder"))
        }
        packet = try Packet()
        writtenProfile = Self.profile(of: c.pointee, codec: settings.codec)
    }

    /// The encoder's private options for `settings` (the caller frees them).
    private static func options(for settings: EncoderSettings) -> OpaquePointer? {
        var options: OpaquePointer?
        switch settings.codec {
        case .h264, .hevc:
            av_dict_set(&options, "preset", settings.preset, 0)
            av_dict_set(&options, "crf", String(settings.crf), 0)
            av_dict_set(&options, "profile", settings.profile, 0)
            if settings.codec == .h264 {
                av_dict_set(&options, "level", settings.level, 0)
                // x264's threaded lookahead (`sync-lookahead`, on whenever it runs frame threads)
                // decides frame types by how far the lookahead thread has got, so the same
                // pictures gave different packets under load: 3 runs in 8 of a plain ffmpeg
                // encode with Debian's libx264 164, and 1 export in 3 of a ramped document.
                // Without it, 8 runs in 8 and 5 in 5 agree.
                av_dict_set(&options, "x264-params", "sync-lookahead=0", 0)
            } else {
                av_dict_set(&options, "x265-params", (["level-idc=\(settings.level)", "log-level=error"] + settings.staticHDR).joined(separator: ":"), 0)
            }
        case .prores:
            av_dict_set(&options, "profile", settings.profile, 0)
            // Apple's vendor code, as Apple's encoders write it.
            av_dict_set(&options, "vendor", "apl0", 0)
        case .vp9:
            av_dict_set(&options, "crf", String(Int(settings.crf.rounded())), 0)
            av_dict_set(&options, "deadline", "good", 0)
            // The presets' speed as libvpx's: ultrafast is cpu-used 8, veryslow 0.
            let speed = 8 - (EncoderSettings.presets.firstIndex(of: settings.preset) ?? 5)
            av_dict_set(&options, "cpu-used", String(speed), 0)
            av_dict_set(&options, "row-mt", "1", 0)
        }
        return options
    }

    /// The H.264 profile the encoder actually writes, from its sequence parameter set: a
    /// requested profile is a ceiling, and a fast preset leaves out what needs High (x264's
    /// ultrafast writes Constrained Baseline). Nil for HEVC or without global headers.
    let writtenProfile: String?

    private static func profile(of c: AVCodecContext, codec: VideoCodec) -> String? {
        guard codec == .h264, let data = c.extradata, c.extradata_size > 4 else { return nil }
        let extradata = UnsafeBufferPointer(start: data, count: Int(c.extradata_size))
        guard let sps = ParameterSets.firstSequenceUnit(extradata: extradata).flatMap(SequenceParameterSet.profileIndication) else {
            return nil
        }
        switch sps.profile {
        // constraint_set1_flag: Constrained Baseline.
        case 66: return sps.constraintFlags & 0x40 != 0 ? "constrained baseline" : "baseline"
        case 77: return "main"
        case 88: return "extended"
        case 100: return "high"
        case 110: return "high10"
        case 122: return "high422"
        case 244: return "high444"
        default: return nil
        }
    }

    /// Encoder frame threads: libx264's own choice (1.5 per core) less one for the thread that
    /// decodes alongside it, and at least two. On 2 cores that is 2 instead of 3, which the
    /// bench movie encodes about 2% faster with the same output size (measured; wider machines
    /// were not available to measure).
    static func threadCount(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        max(2, cores * 3 / 2 - 1)
    }

    deinit { sws_freeContext(scaler) }

    /// `frame` in the encoder's pixel format and size: the frame itself when it already is,
    /// otherwise a converted copy. A picture of another shape (a stream that changes size
    /// mid-file) is scaled to fit, its aspect kept, on black.
    func converted(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: f.format)
        if format == pixelFormat && f.width == width && f.height == height { return frame }
        let fit = fitted(f.width, f.height)
        if scalerSource.map({ $0 != (format, f.width, f.height) }) ?? true {
            sws_freeContext(scaler)
            scaler = sws_getContext(f.width, f.height, format, fit.width, fit.height, pixelFormat, SWS_BICUBIC, nil, nil, nil)
            scalerSource = (format, f.width, f.height)
            guard scaler != nil else { throw ExportError.unsupported("cannot convert \(String(cString: av_get_pix_fmt_name(format))) video to \(String(cString: av_get_pix_fmt_name(pixelFormat)))") }
        }
        let out = fit.width == width && fit.height == height ? try blank() : try black()
        // Where the picture starts in each plane (subsampled chroma at its share of the offsets).
        let o = out.pointer.pointee
        let strides = [o.linesize.0, o.linesize.1, o.linesize.2, o.linesize.3]
        let offsets: [Int] = (0..<8).map { i in
            i < layout.count ? layout.offset(of: i, x: Int(fit.x), y: Int(fit.y), stride: Int(strides[i])) : 0
        }
        _ = withUnsafePointer(to: frame.pointer.pointee.data) { src in
            withUnsafePointer(to: frame.pointer.pointee.linesize) { srcStride in
                withUnsafeMutablePointer(to: &out.pointer.pointee.data) { dst in
                    withUnsafeMutablePointer(to: &out.pointer.pointee.linesize) { dstStride in
                        src.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            dst.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                                srcStride.withMemoryRebound(to: Int32.self, capacity: 8) { ss in
                                    dstStride.withMemoryRebound(to: Int32.self, capacity: 8) { ds in
                                        var planes: [UnsafeMutablePointer<UInt8>?] = (0..<8).map { i in d[i].map { $0 + offsets[i] } }
                                        return sws_scale(scaler, s, ss, 0, f.height, &planes, ds)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Where a `w` × `h` picture goes in the encoder's: as large as fits with its aspect kept,
    /// centred, on even coordinates; the whole picture when that is within 2 pixels of it.
    func fitted(_ w: Int32, _ h: Int32) -> (x: Int32, y: Int32, width: Int32, height: Int32) {
        let scale = min(Double(width) / Double(w), Double(height) / Double(h))
        let fw = min(width, Int32((Double(w) * scale / 2).rounded()) * 2), fh = min(height, Int32((Double(h) * scale / 2).rounded()) * 2)
        guard width - fw > 2 || height - fh > 2 else { return (0, 0, width, height) }
        return ((width - fw) / 4 * 2, (height - fh) / 4 * 2, fw, fh)
    }

    /// A new writable frame in the encoder's format, its buffer laid out as `av_frame_get_buffer`
    /// lays it out (the same strides and plane offsets) but taken from a pool: the encoder
    /// copies each picture it is sent, and the buffer goes back to the pool when the frame is
    /// freed on the encoding thread. Allocated afresh, each picture of 128 KB or more was a new
    /// mapping (the CLI fixes glibc's mmap threshold, see MemoryPolicy) whose pages the kernel
    /// zeroed on first touch: a 1080p export interpolating 120 frames mapped 359 MB that way.
    func blank() throws -> Frame {
        let out = try Frame()
        out.pointer.pointee.format = pixelFormat.rawValue
        out.pointer.pointee.width = width
        out.pointer.pointee.height = height
        let layout = try bufferLayout()
        guard let buffer = av_buffer_pool_get(layout.pool) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "allocating a picture"))
        }
        out.pointer.pointee.buf.0 = buffer
        withUnsafeMutablePointer(to: &out.pointer.pointee.data) { data in
            withUnsafeMutablePointer(to: &out.pointer.pointee.linesize) { strides in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                    strides.withMemoryRebound(to: Int32.self, capacity: 8) { s in
                        for i in 0..<8 {
                            d[i] = layout.offsets[i].map { buffer.pointee.data + $0 }
                            s[i] = layout.strides[i]
                        }
                    }
                }
            }
        }
        return out
    }

    /// Where `av_frame_get_buffer` puts each plane in its one buffer, and the pool of buffers
    /// of that size; learnt from one frame it allocates, on first use.
    private func bufferLayout() throws -> BufferLayout {
        if let pictureBuffers { return pictureBuffers }
        let sample = try Frame()
        sample.pointer.pointee.format = pixelFormat.rawValue
        sample.pointer.pointee.width = width
        sample.pointer.pointee.height = height
        let made = av_frame_get_buffer(sample.pointer, 0)
        guard made >= 0 else { throw ExportError.av(path: display, AVFailure(code: made, operation: "allocating a picture")) }
        let f = sample.pointer.pointee
        guard let whole = f.buf.0, f.buf.1 == nil else { throw ExportError.unsupported("libavutil allocated a picture in more than one buffer") }
        let data = [f.data.0, f.data.1, f.data.2, f.data.3, f.data.4, f.data.5, f.data.6, f.data.7]
        let strides = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3, f.linesize.4, f.linesize.5, f.linesize.6, f.linesize.7]
        let size = whole.pointee.size
        guard let pool = av_buffer_pool_init(size, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "allocating a picture"))
        }
        let layout = BufferLayout(pool: pool, offsets: data.map { $0.map { whole.pointee.data.distance(to: $0) } }, strides: strides)
        pictureBuffers = layout
        return layout
    }

    /// The pool of ``blank()``'s buffers and where each plane starts in one.
    private final class BufferLayout {
        let pool: OpaquePointer
        let offsets: [Int?]
        let strides: [Int32]
        init(pool: OpaquePointer, offsets: [Int?], strides: [Int32]) {
            self.pool = pool
            self.offsets = offsets
            self.strides = strides
        }
        // Buffers still out (in frames not yet freed) keep the pool alive until they return.
        deinit {
            var pool: OpaquePointer? = pool
            av_buffer_pool_uninit(&pool)
        }
    }
    private var pictureBuffers: BufferLayout?

    /// A black picture, for gaps (opaque where the format has alpha).
    func black() throws -> Frame {
        let out = try blank()
        let f = out.pointer.pointee
        let data = [f.data.0, f.data.1, f.data.2, f.data.3], strides = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        for i in 0..<layout.count {
            guard let plane = data[i] else { continue }
            let rows = layout.size(of: i, width: Int(width), height: Int(height)).rows
            let count = Int(strides[i]) * rows, value = layout.black(i)
            if layout.bytes == 2 {
                plane.withMemoryRebound(to: UInt16.self, capacity: count / 2) { $0.update(repeating: UInt16(value), count: count / 2) }
            } else {
                plane.update(repeating: UInt8(value), count: count)
            }
        }
        return out
    }

    /// `a` and `b` (in the encoder's format) mixed, `weight` of `b`, every plane (alpha too).
    func blend(_ a: Frame, _ b: Frame, weight: Double) throws -> Frame {
        let out = try blank()
        let w = Int32((weight * 256).rounded())
        let fa = a.pointer.pointee, fb = b.pointer.pointee, fo = out.pointer.pointee
        let pa = [fa.data.0, fa.data.1, fa.data.2, fa.data.3], sa = [fa.linesize.0, fa.linesize.1, fa.linesize.2, fa.linesize.3]
        let pb = [fb.data.0, fb.data.1, fb.data.2, fb.data.3], sb = [fb.linesize.0, fb.linesize.1, fb.linesize.2, fb.linesize.3]
        let po = [fo.data.0, fo.data.1, fo.data.2, fo.data.3], so = [fo.linesize.0, fo.linesize.1, fo.linesize.2, fo.linesize.3]
        for i in 0..<layout.count {
            guard let pa = pa[i], let pb = pb[i], let po = po[i] else { continue }
            let (columns, rows) = layout.size(of: i, width: Int(width), height: Int(height))
            for y in 0..<rows {
                let ra = pa + y * Int(sa[i]), rb = pb + y * Int(sb[i]), ro = po + y * Int(so[i])
                if layout.bytes == 2 {
                    let a16 = UnsafeRawPointer(ra).assumingMemoryBound(to: UInt16.self)
                    let b16 = UnsafeRawPointer(rb).assumingMemoryBound(to: UInt16.self)
                    let o16 = UnsafeMutableRawPointer(ro).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<columns {
                        o16[x] = UInt16((Int32(a16[x]) * (256 - w) + Int32(b16[x]) * w + 128) >> 8)
                    }
                } else {
                    for x in 0..<columns {
                        ro[x] = UInt8((Int32(ra[x]) * (256 - w) + Int32(rb[x]) * w + 128) >> 8)
                    }
                }
            }
        }
        return out
    }

    /// Encodes `frame` as output frame `index` (nil drains the encoder) and hands each packet
    /// that comes out, timed in the encoder's time base, to `deliver`; an HEVC packet carries
    /// the HDR10+ message `sei` of its frame (see ``HDR10PlusSEI``).
    func encode(_ frame: Frame?, index: Int64, dynamicHDR sei: HDR10PlusSEI? = nil,
                deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if let sei, carriesDynamicHDR { dynamicHDR[index] = sei }
        if let frame {
            frame.pointer.pointee.pts = index
            frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        }
        let sent = LibAVCodec.sendFrame(context.pointer, frame?.pointer)
        guard sent >= 0 else { throw ExportError.av(path: display, AVFailure(code: sent, operation: "encoding video")) }
        while true {
            let got = LibAVCodec.receivePacket(context.pointer, packet.pointer)
            if got == sp_averror_eagain() || got == sp_averror_eof() { return }
            guard got >= 0 else { throw ExportError.av(path: display, AVFailure(code: got, operation: "encoding video")) }
            packet.pointer.pointee.duration = 1
            if let sei = dynamicHDR.removeValue(forKey: packet.pointer.pointee.pts) { try sei.insert(into: packet.pointer) }
            try deliver(packet.pointer)
            LibAVCodec.packetUnref(packet.pointer)
        }
    }
}
