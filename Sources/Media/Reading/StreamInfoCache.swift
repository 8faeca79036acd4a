import Foundation
import SafeFiles
internal import CFFmpeg

/// What `avformat_find_stream_info` learned of an mp4 or mov, kept for the process so that the
/// file's later openings skip it.
///
/// An export opens its movie once per reader (the scans, the packet copier, each audio worker),
/// and each opening decoded the first video frames again to learn the pixel format and the
/// decoding delay: 10 ms of 1080p each, most of them before the first packet is written. An mp4
/// states every stream and packet in its header, so the probing adds only codec facts, the same
/// for every opening of the same bytes. They are kept per file identity (device, inode, size,
/// modification time): a file that changed is probed afresh.
enum StreamInfoCache {
    /// One probed file.
    private final class Entry: @unchecked Sendable {
        let streams: [Stream]
        let startTime: Int64
        let duration: Int64
        let bitRate: Int64
        let bestAudio: Int32

        struct Stream {
            let parameters: CodecParameters
            let averageFrameRate: AVRational
            let realFrameRate: AVRational
            let sampleAspectRatio: AVRational
            let startTime: Int64
            let duration: Int64
        }

        init(_ context: UnsafeMutablePointer<AVFormatContext>) throws {
            streams = try (0..<Int(context.pointee.nb_streams)).map { index in
                let st = context.pointee.streams[index]!.pointee
                return Stream(parameters: try CodecParameters(copying: st.codecpar), averageFrameRate: st.avg_frame_rate,
                              realFrameRate: st.r_frame_rate, sampleAspectRatio: st.sample_aspect_ratio,
                              startTime: st.start_time, duration: st.duration)
            }
            startTime = context.pointee.start_time
            duration = context.pointee.duration
            bitRate = context.pointee.bit_rate
            bestAudio = LibAVFormat.findBestStream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        }

        /// Whether `context` holds the streams this entry was made from.
        func matches(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
            guard Int(context.pointee.nb_streams) == streams.count else { return false }
            return streams.indices.allSatisfy { index in
                let par = context.pointee.streams[index]!.pointee.codecpar.pointee
                let kept = streams[index].parameters.pointer.pointee
                return par.codec_type == kept.codec_type && par.codec_id == kept.codec_id
            }
        }

        func apply(to context: UnsafeMutablePointer<AVFormatContext>) {
            for (index, kept) in streams.enumerated() {
                let st = context.pointee.streams[index]!
                LibAVCodec.parametersCopy(st.pointee.codecpar, kept.parameters.pointer)
                st.pointee.avg_frame_rate = kept.averageFrameRate
                st.pointee.r_frame_rate = kept.realFrameRate
                st.pointee.sample_aspect_ratio = kept.sampleAspectRatio
                st.pointee.start_time = kept.startTime
                st.pointee.duration = kept.duration
            }
            context.pointee.start_time = startTime
            context.pointee.duration = duration
            context.pointee.bit_rate = bitRate
        }
    }

    /// A file as `stat(2)` tells it apart: its identity, size and modification time.
    private struct Key: Hashable {
        let identity: FileIdentity
        let size: Int64
        let seconds: Int
        let nanoseconds: Int
    }

    nonisolated(unsafe) private static var entries: [Key: Entry] = [:]
    /// How many openings took their stream information from an earlier probe (for tests).
    nonisolated(unsafe) private(set) static var hits = 0
    private static let lock = NSLock()

    /// Whether `format` states every stream in its header (mov and mp4).
    static func statesEverything(_ format: UnsafePointer<AVInputFormat>?) -> Bool {
        guard let name = format?.pointee.name else { return false }
        return String(cString: name).hasPrefix("mov,")
    }

    /// Reads the stream information of `context`, opened from `path`: from an earlier
    /// probe of the same file when there is one, else by probing it. Returns libav's result.
    static func findStreamInfo(_ context: UnsafeMutablePointer<AVFormatContext>, path: String) -> Int32 {
        guard statesEverything(context.pointee.iformat), let key = key(path) else { return LibAVFormat.findStreamInfo(context, nil) }
        if let entry = lock.withLock({ entries[key] }), entry.matches(context) {
            entry.apply(to: context)
            lock.withLock { hits += 1 }
            return 0
        }
        let found = LibAVFormat.findStreamInfo(context, nil)
        if found >= 0, let entry = try? Entry(context) { lock.withLock { entries[key] = entry } }
        return found
    }

    /// The best audio stream of `context` as `av_find_best_stream` chose it when the file was
    /// probed, or chooses it now.
    static func bestAudioStream(_ context: UnsafeMutablePointer<AVFormatContext>, path: String) -> Int32 {
        if let key = key(path), let entry = lock.withLock({ entries[key] }), entry.matches(context) { return entry.bestAudio }
        return LibAVFormat.findBestStream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    }

    private static func key(_ path: String) -> Key? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Key(identity: FileIdentity(info), size: Int64(info.st_size), seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }
}
