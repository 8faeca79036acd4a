import Foundation
import SafeFiles
package import CFFmpeg

/// An opened input file: owns an `AVFormatContext` from `avformat_open_input` until deinit.
package final class InputFormatContext {
    /// Demuxers for common extensions.
    static let demuxers = ["wav": "wav", "flac": "flac", "mp3": "mp3", "mp4": "mov", "m4a": "mov", "m4v": "mov",
                           "mov": "mov", "mkv": "matroska", "webm": "matroska", "ogg": "ogg", "opus": "ogg"]

    package let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String

    /// Where the clock starts again (see ``ClockRestarts``); nil when it runs on.
    package private(set) var clock: ClockRestarts?
    /// Per stream, the segment of its last packet: a packet without a byte position (an audio
    /// frame split from a PES packet) takes it.
    private var segments: [Int] = []

    /// Opens `path` and reads its stream information. Unless `followingClockRestarts` is false,
    /// a demuxer whose timestamps may start again has them put on one running clock.
    package init(path: String, followingClockRestarts: Bool = true) throws(MediaError) {
        self.path = path
        // A FIFO or a device would block or never end: only regular files are read.
        if let kind = InputFile.irregularKind(path) { throw .cannotOpen(path: path, reason: "it is \(kind), not a regular file") }
        try LibAV.load()
        var context: UnsafeMutablePointer<AVFormatContext>?
        // Try the demuxer the extension names first: probing every format costs more than
        // reading a short WAV. A wrong extension just falls back to probing.
        var opened: Int32 = -1
        if let hint = Self.demuxers[(path as NSString).pathExtension.lowercased()], let format = LibAVFormat.findInputFormat(hint) {
            opened = LibAVFormat.openInput(&context, path, format, nil)
        }
        if opened < 0 { opened = LibAVFormat.openInput(&context, path, nil, nil) }
        guard opened >= 0, let context else {
            let failure = AVFailure(code: opened, operation: "opening")
            if failure.isInvalidData { throw .notMedia(path: path, reason: TruncatedMP4.missingIndex(path) ?? failure.message) }
            throw .cannotOpen(path: path, reason: failure.message)
        }
        pointer = context
        let found = StreamInfoCache.findStreamInfo(context, path: path)
        guard found >= 0 else {
            // deinit closes the context.
            throw .notMedia(path: path, reason: AVFailure(code: found, operation: "reading stream information").message)
        }
        if followingClockRestarts, context.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0 {
            let found = try ClockRestarts.of(path: path)
            if !found.restarts.isEmpty || !found.outliers.isEmpty || !found.damagedPresentation.isEmpty { follow(found) }
        }
    }

    /// Takes `found` on: every packet read from here is moved onto its running clock, and the
    /// streams' and the file's durations stated on it.
    private func follow(_ found: ClockRestarts) {
        clock = found
        segments = Array(repeating: 0, count: streamCount)
        var fileEnd = Int64.min
        for index in 0..<min(streamCount, found.ends.count) where found.ends[index] != .min {
            let st = stream(index).pointer
            let start = st.pointee.start_time
            guard start != sp_av_nopts_value() else { continue }
            st.pointee.duration = max(st.pointee.duration, found.ends[index] &- start)
            fileEnd = max(fileEnd, av_rescale_q(found.ends[index], st.pointee.time_base, AVRational(num: 1, den: sp_av_time_base())))
        }
        let start = pointer.pointee.start_time
        if fileEnd != .min, start != sp_av_nopts_value() { pointer.pointee.duration = max(pointer.pointee.duration, fileEnd &- start) }
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        LibAVFormat.closeInput(&context)
    }

    package var streamCount: Int { Int(pointer.pointee.nb_streams) }

    /// Reads stream `index` alone from here: the demuxer skips every other stream's packets.
    ///
    /// An mp4 or mov states where each sample lies, and its demuxer seeks to each one; libavio
    /// reads through any gap shorter than its buffer and more, which in a file interleaved a
    /// frame at a time is all of them: an audio stream read alone read the whole movie. Where
    /// the stream's samples lie far apart (more than ``directSpacing`` bytes of file each, as
    /// audio beside HD video does), direct I/O seeks past the gaps and reads each sample
    /// straight into its packet; where they lie close, reading through costs less than the two
    /// system calls a sample.
    package func readOnly(stream index: Int) {
        for other in 0..<streamCount where other != index { stream(other).pointer.pointee.discard = AVDISCARD_ALL }
        guard let pb = pointer.pointee.pb, StreamInfoCache.statesEverything(pointer.pointee.iformat) else { return }
        var info = stat()
        let samples = stream(index).pointer.pointee.nb_frames
        if samples > 0, stat(path, &info) == 0, Int64(info.st_size) / samples >= Self.directSpacing { pb.pointee.direct = 1 }
    }

    /// The bytes of file per sample above which a stream read alone is read sample by sample.
    static let directSpacing: Int64 = 32 << 10

    /// The best audio stream, as `av_find_best_stream` chooses it; -1 when there is none.
    var bestAudioStream: Int32 { StreamInfoCache.bestAudioStream(pointer, path: path) }

    /// A borrowed view of stream `index`; it keeps this context alive.
    package func stream(_ index: Int) -> StreamView { StreamView(owner: self, index: index) }

    /// Reads the next packet into `packet`; false at the end of the file.
    package func read(into packet: Packet) throws(MediaError) -> Bool {
        LibAVCodec.packetUnref(packet.pointer)
        let result = LibAVFormat.readFrame(pointer, packet.pointer)
        if result == sp_averror_eof() { return false }
        if result < 0 { throw .av(path: path, AVFailure(code: result, operation: "reading a packet")) }
        if let clock {
            let p = packet.pointer
            let index = Int(p.pointee.stream_index)
            guard index < segments.count else { return true }
            let segment = p.pointee.pos >= 0 ? clock.segment(at: p.pointee.pos) : segments[index]
            segments[index] = segment
            let shift = av_rescale_q(clock.offset(segment), AVRational(num: 1, den: sp_av_time_base()), stream(index).pointer.pointee.time_base)
            // A packet whose timestamp alone jumped (damaged) goes back where its stream's clock stood.
            let repair = p.pointee.pos >= 0 ? clock.outliers[p.pointee.pos] ?? 0 : 0
            if p.pointee.pos >= 0, clock.damagedPresentation.contains(p.pointee.pos) {
                // A damaged presentation time: read at its decode time, as damaged.
                p.pointee.pts = p.pointee.dts
                p.pointee.flags |= AV_PKT_FLAG_CORRUPT
            }
            if p.pointee.pts != sp_av_nopts_value() { p.pointee.pts &+= shift &+ repair }
            if p.pointee.dts != sp_av_nopts_value() { p.pointee.dts &+= shift &+ repair }
        }
        return true
    }

    /// Seeks to the keyframe of `stream` at or before `ticks` (its time base), as
    /// `av_seek_frame` with `AVSEEK_FLAG_BACKWARD` does; on a clock that starts again, by byte,
    /// to the keyframe recorded there (see ``ClockRestarts``). Returns libav's result.
    @discardableResult
    func seek(stream index: Int, to ticks: Int64) -> Int32 {
        guard let clock, let position = clock.seekPosition(stream: index, time: ticks, base: stream(index).pointer.pointee.time_base) else {
            return LibAVFormat.seekFrame(pointer, Int32(index), ticks, AVSEEK_FLAG_BACKWARD)
        }
        return LibAVFormat.seekFrame(pointer, -1, position, AVSEEK_FLAG_BYTE)
    }
}
