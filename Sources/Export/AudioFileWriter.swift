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
    }

    public let format: AudioFormat
    public let output: AtomicOutput
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let encoder: AudioEncoder
    private let stream: UnsafeMutablePointer<AVStream>

    /// The containers slowpoke writes audio to, by file extension.
    public static let extensions = ["wav", "flac"]

    /// Opens `output`'s temporary file for `format` audio at `depth`. The container comes from
    /// the destination's extension: `.wav` or `.flac`.
    public init(output: AtomicOutput, format: AudioFormat, depth: Depth) throws(ExportError) {
        try LibAV.load()
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
        default:
            throw .unsupported("slowpoke writes audio as .wav or .flac, not .\(ext.isEmpty ? "(no extension)" : ext)")
        }
        let path = output.temporary.path
        var made: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&made, nil, muxer, path)
        guard allocated >= 0, let made else { throw .av(path: output.destination.path, AVFailure(code: allocated, operation: "creating the \(muxer) file")) }
        context = made
        encoder = try AudioEncoder(format: format, codecID: codecID, sampleFormat: sampleFormat,
                                   bitsPerRawSample: depth == .int24 ? 24 : nil,
                                   globalHeader: made.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0,
                                   display: output.destination.path)
        guard let newStream = avformat_new_stream(made, nil) else {
            throw .av(path: output.destination.path, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        stream = newStream
        stream.pointee.time_base = encoder.timeBase
        avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context.pointer)
        let io = avio_open(&made.pointee.pb, path, AVIO_FLAG_WRITE)
        guard io >= 0 else { throw .cannotWrite(path: output.destination.path, reason: AVFailure(code: io, operation: "").message) }
        let header = avformat_write_header(made, nil)
        guard header >= 0 else { throw .av(path: output.destination.path, AVFailure(code: header, operation: "writing the header")) }
    }

    deinit {
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
        }
    }

    /// Appends `count` frames.
    public func write(_ samples: [[Float]], count: Int) throws {
        try encoder.write(samples, count: count, deliver: store)
    }

    /// Writes what is left and the trailer, and moves the file into place.
    public func finish() throws {
        try encoder.finish(deliver: store)
        guard let context else { return }
        let trailer = av_write_trailer(context)
        guard trailer >= 0 else { throw ExportError.av(path: output.destination.path, AVFailure(code: trailer, operation: "finishing the file")) }
        avio_closep(&context.pointee.pb)
        try output.commit()
    }

    private func store(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        packet.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(packet, encoder.timeBase, stream.pointee.time_base)
        let wrote = av_interleaved_write_frame(context, packet)
        guard wrote >= 0 else { throw ExportError.cannotWrite(path: output.destination.path, reason: AVFailure(code: wrote, operation: "").message) }
    }
}
