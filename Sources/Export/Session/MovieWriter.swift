import Foundation
internal import CFFmpeg
import Media

/// An output file being written by a libavformat muxer: owns the `AVFormatContext` and its
/// file, and frees them whatever happens. Movies and audio files alike are written through it.
final class MovieWriter {
    let context: UnsafeMutablePointer<AVFormatContext>
    private let display: String
    private var opened = false

    /// The file format written.
    let container: Container

    /// Opens `path` as `container`; `display` names the file in messages, and `what` says what is
    /// being made if that fails.
    init(path: String, display: String, container: Container, what: String = "the output") throws(ExportError) {
        self.container = container
        try media(LibAV.load)
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = LibAVFormat.allocOutputContext(&made, nil, container.muxer, path)
        guard result >= 0, let made else { throw ExportError.av(path: display, AVFailure(code: result, operation: "creating \(what)")) }
        context = made
        self.display = display
        let io = LibAVFormat.ioOpen(&made.pointee.pb, path, AVIO_FLAG_WRITE)
        guard io >= 0 else { throw ExportError.cannotWrite(path: display, reason: AVFailure(code: io, operation: "").message) }
        opened = true
    }

    deinit {
        if opened { LibAVFormat.ioClose(&context.pointee.pb) }
        LibAVFormat.freeFormatContext(context)
    }

    /// A new stream with `source`'s codec parameters, metadata (language, handler), disposition
    /// and side data (the display matrix that carries rotation, HDR metadata).
    func addStream(copying source: StreamView, timeBase: AVRational) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try addStream(parameters: source.parameters, timeBase: timeBase,
                                   metadata: source.pointer.pointee.metadata, disposition: source.pointer.pointee.disposition)
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_tag = CodecTag.kept(source.parameters.pointee.codec_tag, codec: parameters.pointee.codec_id,
                                                     in: context.pointee.oformat)
        if parameters.pointee.codec_tag == 0 { tagHEVC(stream, keeping: Self.hvc1) }
        stream.pointee.sample_aspect_ratio = source.pointer.pointee.sample_aspect_ratio
        let src = source.pointer.pointee
        for i in 0..<Int(src.nb_side_data) {
            let entry = src.side_data[i]
            guard let target = LibAVFormat.streamNewSideData(stream, entry.type, entry.size) else { continue }
            target.update(from: entry.data, count: entry.size)
        }
        return stream
    }

    /// A new stream with `parameters` (an audio encoder's, say), `metadata` (language, handler)
    /// and `disposition`.
    func addStream(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
                   metadata: OpaquePointer?, disposition: Int32) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = LibAVFormat.newStream(context, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        let copied = LibAVCodec.parametersCopy(stream.pointee.codecpar, parameters)
        guard copied >= 0 else { throw ExportError.av(path: display, AVFailure(code: copied, operation: "copying codec parameters")) }
        stream.pointee.time_base = timeBase
        stream.pointee.disposition = disposition
        av_dict_copy(&stream.pointee.metadata, metadata, 0)
        return stream
    }

    /// A new stream for `encoder`'s output, in the encoder's time base.
    func addStream(encoder: CodecContext) throws(ExportError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = LibAVFormat.newStream(context, nil) else {
            throw ExportError.av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "adding a stream"))
        }
        let copied = LibAVCodec.parametersFromContext(stream.pointee.codecpar, encoder.pointer)
        guard copied >= 0 else { throw ExportError.av(path: display, AVFailure(code: copied, operation: "setting codec parameters")) }
        stream.pointee.time_base = encoder.pointer.pointee.time_base
        return stream
    }

    /// A new stream for `encoder`'s output, with `source`'s metadata and disposition, and its
    /// side data: always the display matrix (rotation); the HDR entries only when `keepHDR`.
    func addStream(encoder: CodecContext, source: StreamView, keepHDR: Bool) throws -> UnsafeMutablePointer<AVStream> {
        let stream = try addStream(encoder: encoder)
        tagHEVC(stream, keeping: Self.hvc1)
        stream.pointee.avg_frame_rate = encoder.pointer.pointee.framerate
        stream.pointee.sample_aspect_ratio = encoder.pointer.pointee.sample_aspect_ratio
        stream.pointee.disposition = source.pointer.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, source.pointer.pointee.metadata, 0)
        av_dict_set(&stream.pointee.metadata, "encoder", nil, 0)
        // Matroska writes AlphaMode from this tag; the encoder's pixel format says it anew when
        // the output keeps alpha (yuva420p), so a copied tag could only claim alpha wrongly.
        av_dict_set(&stream.pointee.metadata, "alpha_mode", nil, 0)
        let src = source.pointer.pointee
        for i in 0..<Int(src.nb_side_data) {
            let entry = src.side_data[i]
            guard entry.type == AV_PKT_DATA_DISPLAYMATRIX || keepHDR else { continue }
            guard let target = LibAVFormat.streamNewSideData(stream, entry.type, entry.size) else { continue }
            target.update(from: entry.data, count: entry.size)
        }
        return stream
    }

    /// HEVC's sample entry names in mp4 and mov. Apple's players play only `hvc1` (parameter
    /// sets in the sample entry); libavformat writes `hev1` unless told.
    static let hvc1 = CodecTag.fourCC("hvc1")

    /// Tags an HEVC stream of an mp4 or mov file `tag` (`hvc1`, when the source had no tag the
    /// container takes); other streams and containers keep libavformat's choice.
    private func tagHEVC(_ stream: UnsafeMutablePointer<AVStream>, keeping tag: UInt32) {
        guard container.isQuickTime, stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC else { return }
        stream.pointee.codecpar.pointee.codec_tag = tag
    }

    /// Whether the movie's metadata holds vendors' reverse-DNS keys (Apple's
    /// `com.apple.quicktime.location.ISO6709`, make, model, software …; Android's
    /// `com.android.capture.fps`, `com.android.version`), which mp4 and mov keep only as `mdta`
    /// keys (`use_metadata_tags`; FFmpeg 5.1 writes every value as UTF-8 text). In that mode every
    /// key is written, so the container's own bookkeeping (brands, the encoder) is left out.
    private func keepsQuickTimeKeys() -> Bool {
        guard container.isQuickTime, Self.hasVendorKeys(context.pointee.metadata) else { return false }
        for key in ["major_brand", "minor_version", "compatible_brands", "encoder"] {
            av_dict_set(&context.pointee.metadata, key, nil, 0)
        }
        return true
    }

    /// Whether `metadata` holds a reverse-DNS key (`com.android.version`, `org.example.take`):
    /// two dots, the first after a lowercase label.
    static func hasVendorKeys(_ metadata: OpaquePointer?) -> Bool {
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entry = next
            let parts = String(cString: next.pointee.key).split(separator: ".", omittingEmptySubsequences: false)
            if parts.count >= 3, parts[0].allSatisfy({ $0.isLowercase || $0.isNumber }), !parts[0].isEmpty, !parts[1].isEmpty { return true }
        }
        return false
    }

    func writeHeader(videoTimescale: Int32?) throws(ExportError) {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if container.isISOMedia {
            // A stream cannot be rewound to put the index first: it is fragmented instead, an
            // empty moov and then a fragment from each keyframe.
            let layout = container.isStreamed ? "+frag_keyframe+empty_moov+default_base_moof" : "+faststart"
            av_dict_set(&options, "movflags", keepsQuickTimeKeys() ? layout + "+use_metadata_tags" : layout, 0)
            // Without it a fragmented mp4's frames after the first move by the audio's priming.
            if container.isStreamed { av_dict_set(&options, "use_editlist", "1", 0) }
            if let videoTimescale { av_dict_set(&options, "video_track_timescale", "\(videoTimescale)", 0) }
            // mp4 and mov keep no stream title; players show the track's handler name instead.
            for i in 0..<Int(context.pointee.nb_streams) {
                guard let stream = context.pointee.streams[i],
                      let title = av_dict_get(stream.pointee.metadata, "title", nil, 0)?.pointee.value,
                      av_dict_get(stream.pointee.metadata, "handler_name", nil, 0) == nil else { continue }
                av_dict_set(&stream.pointee.metadata, "handler_name", title, 0)
            }
        }
        // A WAV file's sizes are 32-bit; past 4 GiB it becomes RF64, as WAVFileWriter's does.
        if container.isWAV { av_dict_set(&options, "rf64", "auto", 0) }
        let result = LibAVFormat.writeHeader(context, &options)
        guard result >= 0 else { throw ExportError.av(path: display, AVFailure(code: result, operation: "writing the header")) }
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        if isPriming(packet) { return }
        let result = LibAVFormat.interleavedWriteFrame(context, packet)
        guard result >= 0 else { throw ExportError.cannotWrite(path: display, reason: AVFailure(code: result, operation: "").message) }
    }

    /// An audio packet that ends before time 0 (an encoder's priming, which an mp4 file hides
    /// behind its edit list) in a fragmented mp4: its edit list is written before any sample and
    /// readers do not apply it, so the sound would start that much late. It is left out; the
    /// first frame then decodes without its pre-roll, on time.
    private func isPriming(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard container.isStreamed, container.isQuickTime, packet.pointee.pts != sp_av_nopts_value(),
              let stream = context.pointee.streams[Int(packet.pointee.stream_index)],
              stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return false }
        return packet.pointee.pts + packet.pointee.duration <= 0
    }

    func finish() throws {
        let result = LibAVFormat.writeTrailer(context)
        guard result >= 0 else { throw ExportError.av(path: display, AVFailure(code: result, operation: "finishing the file")) }
        LibAVFormat.ioClose(&context.pointee.pb)
        opened = false
    }
}
