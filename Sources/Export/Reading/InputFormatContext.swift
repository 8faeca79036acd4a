import Foundation
import SafeFiles
internal import CFFmpeg

/// An opened input file: owns an `AVFormatContext` from `avformat_open_input` until deinit.
final class InputFormatContext {
    /// Demuxers for common extensions.
    static let demuxers = ["wav": "wav", "flac": "flac", "mp3": "mp3", "mp4": "mov", "m4a": "mov", "m4v": "mov",
                           "mov": "mov", "mkv": "matroska", "webm": "matroska", "ogg": "ogg", "opus": "ogg"]

    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String

    /// Opens `path` and reads its stream information.
    init(path: String) throws(ExportError) {
        self.path = path
        // A FIFO or a device would block or never end: only regular files are read.
        if let kind = InputFile.irregularKind(path) { throw .cannotOpen(path: path, reason: "it is \(kind), not a regular file") }
        try LibAV.load()
        var context: UnsafeMutablePointer<AVFormatContext>?
        // Try the demuxer the extension names first: probing every format costs more than
        // reading a short WAV. A wrong extension just falls back to probing.
        var opened: Int32 = -1
        if let hint = Self.demuxers[(path as NSString).pathExtension.lowercased()], let format = av_find_input_format(hint) {
            opened = avformat_open_input(&context, path, format, nil)
        }
        if opened < 0 { opened = avformat_open_input(&context, path, nil, nil) }
        guard opened >= 0, let context else {
            let failure = AVFailure(code: opened, operation: "opening")
            if failure.isInvalidData { throw .notMedia(path: path, reason: TruncatedMP4.missingIndex(path) ?? failure.message) }
            throw .cannotOpen(path: path, reason: failure.message)
        }
        pointer = context
        let found = avformat_find_stream_info(context, nil)
        guard found >= 0 else {
            // deinit closes the context.
            throw .notMedia(path: path, reason: AVFailure(code: found, operation: "reading stream information").message)
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    var streamCount: Int { Int(pointer.pointee.nb_streams) }

    /// A borrowed view of stream `index`; it keeps this context alive.
    func stream(_ index: Int) -> StreamView { StreamView(owner: self, index: index) }

    /// Reads the next packet into `packet`; false at the end of the file.
    func read(into packet: Packet) throws(ExportError) -> Bool {
        av_packet_unref(packet.pointer)
        let result = av_read_frame(pointer, packet.pointer)
        if result == sp_averror_eof() { return false }
        if result < 0 { throw .av(path: path, AVFailure(code: result, operation: "reading a packet")) }
        return true
    }
}
