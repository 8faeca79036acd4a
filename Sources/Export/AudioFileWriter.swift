import Foundation
public import TimePitch
internal import CFFmpeg

/// Writes planar float audio to a WAV or FLAC file through libavformat and libavcodec.
///
/// The file is written under a temporary name (see ``AtomicOutput``) and appears only when
/// ``finish()`` succeeds.
public final class AudioFileWriter {
    /// Sample encodings on disk.
    public enum Depth: Sendable, Equatable {
        case int16, int24, float32
        /// AAC at this many bits per second (for .m4a, and movies' audio).
        case aac(bitRate: Int)
    }

    public let format: AudioFormat
    public let output: AtomicOutput
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let encoder: CodecContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let converter: SampleConverter
    private let frame: Frame
    private let packet: Packet
    /// Frames per encoder call (FLAC wants whole blocks; PCM takes anything).
    private let frameSize: Int
    private var pending: [[Float]]
    private var written: Int64 = 0

    /// The containers slowpoke writes audio to, by file extension.
    public static let extensions = ["wav", "flac"]

    /// Opens `output`'s temporary file for `format` audio at `depth`. The container comes from
    /// the destination's extension: `.wav` or `.flac`.
    public init(output: AtomicOutput, format: AudioFormat, depth: Depth) throws(ExportError) {
        LibAV.configure()
        self.output = output
        self.format = format
        let ext = output.destination.pathExtension.lowercased()
        let (muxer, codecID, sampleFormat): (String, AVCodecID, AVSampleFormat)
        switch (ext, depth) {
        case ("wav", .int16): (muxer, codecID, sampleFormat) = ("wav", AV_CODEC_ID_PCM_S16LE, AV_SAMPLE_FMT_S16)
        case ("wav", .int24): (muxer, codecID, sampleFormat) = ("wav", AV_CODEC_ID_PCM_S24LE, AV_SAMPLE_FMT_S32)
        case ("wav", .float32): (muxer, codecID, sampleFormat) = ("wav", AV_CODEC_ID_PCM_F32LE, AV_SAMPLE_FMT_FLT)
        case ("flac", .int16): (muxer, codecID, sampleFormat) = ("flac", AV_CODEC_ID_FLAC, AV_SAMPLE_FMT_S16)
        case ("flac", _): (muxer, codecID, sampleFormat) = ("flac", AV_CODEC_ID_FLAC, AV_SAMPLE_FMT_S32)
        case ("m4a", .aac), ("mp4", .aac): (muxer, codecID, sampleFormat) = ("mp4", AV_CODEC_ID_AAC, AV_SAMPLE_FMT_FLTP)
        default:
            throw .unsupported("slowpoke writes audio as .wav or .flac, not .\(ext.isEmpty ? "(no extension)" : ext)")
        }
        let path = output.temporary.path
        var made: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&made, nil, muxer, path)
        guard allocated >= 0, let made else { throw .av(path: output.destination.path, AVFailure(code: allocated, operation: "creating the \(muxer) file")) }
        context = made
        guard let codec = avcodec_find_encoder(codecID) else { throw .unsupported("this FFmpeg has no \(muxer) encoder") }
        encoder = try CodecContext(codec: codec)
        let e = encoder.pointer
        e.pointee.sample_rate = Int32(format.sampleRate)
        e.pointee.sample_fmt = sampleFormat
        av_channel_layout_default(&e.pointee.ch_layout, Int32(format.channels))
        e.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        if depth == .int24 { e.pointee.bits_per_raw_sample = 24 }
        if case .aac(let bitRate) = depth { e.pointee.bit_rate = Int64(bitRate) }
        if made.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { e.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        let opened = avcodec_open2(e, codec, nil)
        guard opened >= 0 else { throw .av(path: output.destination.path, AVFailure(code: opened, operation: "opening the encoder")) }
        guard let newStream = avformat_new_stream(made, nil) else {
            throw .av(path: output.destination.path, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        stream = newStream
        stream.pointee.time_base = e.pointee.time_base
        avcodec_parameters_from_context(stream.pointee.codecpar, e)
        let io = avio_open(&made.pointee.pb, path, AVIO_FLAG_WRITE)
        guard io >= 0 else { throw .cannotWrite(path: output.destination.path, reason: AVFailure(code: io, operation: "").message) }
        let header = avformat_write_header(made, nil)
        guard header >= 0 else { throw .av(path: output.destination.path, AVFailure(code: header, operation: "writing the header")) }
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(format.channels))
        converter = try SampleConverter(inLayout: layout, inFormat: AV_SAMPLE_FMT_FLTP, inRate: Int32(format.sampleRate),
                                        outChannels: Int32(format.channels), outFormat: sampleFormat, outRate: Int32(format.sampleRate))
        av_channel_layout_uninit(&layout)
        frame = try Frame()
        packet = try Packet()
        frameSize = e.pointee.frame_size > 0 ? Int(e.pointee.frame_size) : 4096
        pending = [[Float]](repeating: [], count: format.channels)
    }

    deinit {
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
        }
    }

    /// Appends `count` frames.
    public func write(_ samples: [[Float]], count: Int) throws {
        for c in 0..<format.channels { pending[c].append(contentsOf: samples[c][0..<count]) }
        var offset = 0
        while pending[0].count - offset >= frameSize {
            try encode(from: offset, count: frameSize)
            offset += frameSize
        }
        if offset > 0 { for c in 0..<format.channels { pending[c].removeFirst(offset) } }
    }

    /// Writes what is left, the trailer, and moves the file into place; with `commit: false`
    /// the finished file stays at `output.temporary` (a scratch file that the output removes).
    public func finish(commit: Bool = true) throws {
        if !pending[0].isEmpty { try encode(from: 0, count: pending[0].count) }
        pending = pending.map { _ in [] }
        try drain(flushing: true)
        guard let context else { return }
        let trailer = av_write_trailer(context)
        guard trailer >= 0 else { throw ExportError.av(path: output.destination.path, AVFailure(code: trailer, operation: "finishing the file")) }
        avio_closep(&context.pointee.pb)
        if commit { try output.commit() }
    }

    private func encode(from offset: Int, count: Int) throws {
        let f = frame.pointer
        av_frame_unref(f)
        f.pointee.nb_samples = Int32(count)
        f.pointee.format = encoder.pointer.pointee.sample_fmt.rawValue
        f.pointee.sample_rate = Int32(format.sampleRate)
        av_channel_layout_copy(&f.pointee.ch_layout, &encoder.pointer.pointee.ch_layout)
        let allocated = av_frame_get_buffer(f, 0)
        guard allocated >= 0 else { throw ExportError.av(path: output.destination.path, AVFailure(code: allocated, operation: "allocating audio")) }
        // Planar floats in, the encoder's format out.
        try withPlanes(pending, from: offset) { planes in
            _ = try converter.convert(output: f.pointee.extended_data, capacity: count, input: planes, count: count)
        }
        f.pointee.pts = written
        written += Int64(count)
        let sent = avcodec_send_frame(encoder.pointer, f)
        guard sent >= 0 else { throw ExportError.av(path: output.destination.path, AVFailure(code: sent, operation: "encoding")) }
        try drain(flushing: false)
    }

    private func drain(flushing: Bool) throws {
        if flushing { avcodec_send_frame(encoder.pointer, nil) }
        while true {
            let received = avcodec_receive_packet(encoder.pointer, packet.pointer)
            if received == sp_averror_eagain() || received == sp_averror_eof() { return }
            guard received >= 0 else { throw ExportError.av(path: output.destination.path, AVFailure(code: received, operation: "encoding")) }
            packet.pointer.pointee.stream_index = stream.pointee.index
            av_packet_rescale_ts(packet.pointer, encoder.pointer.pointee.time_base, stream.pointee.time_base)
            let wrote = av_interleaved_write_frame(context, packet.pointer)
            guard wrote >= 0 else { throw ExportError.cannotWrite(path: output.destination.path, reason: AVFailure(code: wrote, operation: "").message) }
        }
    }
}

/// Calls `body` with a C table of pointers to each array's samples from frame `offset`, valid
/// for the duration of the call.
func withPlanes<R>(_ arrays: [[Float]], from offset: Int,
                   _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) throws -> R) rethrows -> R {
    let table = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: max(1, arrays.count))
    defer { table.deallocate() }
    func nest(_ channel: Int) throws -> R {
        if channel == arrays.count { return try body(table) }
        return try arrays[channel].withUnsafeBytes { raw in
            table[channel] = (raw.baseAddress! + offset * MemoryLayout<Float>.stride).assumingMemoryBound(to: UInt8.self)
            return try nest(channel + 1)
        }
    }
    return try nest(0)
}
