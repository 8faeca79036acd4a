import Foundation
public import SafeFiles
public import TimePitch
internal import CFFmpeg
import Media

/// Writes planar float audio to a WAV or FLAC file through libavformat and libavcodec.
///
/// The file is written under a temporary name (see ``OutputFile``) and appears only when
/// ``finish()`` succeeds.
public final class AudioFileWriter {
    /// Sample encodings on disk.
    public enum Depth: Sendable, Equatable {
        case int16, int24, float32
    }

    public let format: AudioFormat
    public let output: OutputFile
    private let writer: MovieWriter
    private let encoder: AudioEncoder
    private let stream: UnsafeMutablePointer<AVStream>

    /// The containers slowpoke writes audio to, by file extension.
    public static let extensions = ["wav", "flac"]

    /// Opens `output`'s temporary file for `format` audio at `depth`. The container comes from
    /// the destination's extension: `.wav` or `.flac`.
    public init(output: OutputFile, format: AudioFormat, depth: Depth) throws(ExportError) {
        try media(LibAV.load)
        self.output = output
        self.format = format
        let ext = output.destination.pathExtension.lowercased()
        guard Self.extensions.contains(ext), let container = Container(audioFile: ext) else {
            throw .unsupported("slowpoke writes audio as .wav or .flac, not .\(ext.isEmpty ? "(no extension)" : ext)")
        }
        // WAV is PCM at the depth asked; FLAC is 16 or 24 bits in 32-bit samples.
        let (codecID, sampleFormat): (AVCodecID, AVSampleFormat) = switch (container.isWAV, depth) {
        case (true, .int16): (AV_CODEC_ID_PCM_S16LE, AV_SAMPLE_FMT_S16)
        case (true, .int24): (AV_CODEC_ID_PCM_S24LE, AV_SAMPLE_FMT_S32)
        case (true, .float32): (AV_CODEC_ID_PCM_F32LE, AV_SAMPLE_FMT_FLT)
        case (false, .int16): (AV_CODEC_ID_FLAC, AV_SAMPLE_FMT_S16)
        case (false, _): (AV_CODEC_ID_FLAC, AV_SAMPLE_FMT_S32)
        }
        writer = try MovieWriter(path: output.openablePath, display: output.destination.path, container: container,
                                 what: "the \(container.muxer) file")
        encoder = try AudioEncoder(format: format, codecID: codecID, sampleFormat: sampleFormat,
                                   bitsPerRawSample: depth == .int24 ? 24 : nil,
                                   globalHeader: writer.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0,
                                   display: output.destination.path)
        stream = try writer.addStream(encoder: encoder.context)
        try writer.writeHeader(videoTimescale: nil)
    }

    /// Appends `count` frames.
    public func write(_ samples: [[Float]], count: Int) throws {
        try encoder.write(samples, count: count, deliver: store)
    }

    /// Writes what is left and the trailer, and moves the file into place.
    public func finish() throws {
        try encoder.finish(deliver: store)
        try writer.finish()
        try output.commitExport()
    }

    private func store(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        packet.pointee.stream_index = stream.pointee.index
        LibAVCodec.packetRescaleTS(packet, encoder.timeBase, stream.pointee.time_base)
        try writer.write(packet)
    }
}
