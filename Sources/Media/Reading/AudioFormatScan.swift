import Foundation
import Synchronization
import Composition
internal import CFFmpeg

/// Finds where an audio stream changes format mid-file from its frames' headers
/// (``AudioFrameHeader``), without decoding: fed every packet of the stream, it keeps each format
/// with the time it starts. The prober feeds it during its packet scan; readers and exports ask
/// ``changes(path:stream:)``, which reads only the one stream's packets of the containers where a
/// format can change (transport and program streams, raw AC-3, AAC and MPEG audio), once per
/// file and process.
package struct AudioFormatScan {
    private let codec: AudioFrameHeader.Codec?
    private let timeBase: AVRational
    private let origin: Int64
    /// HE-AAC's ADTS headers state half the rate its decoder plays at.
    private let rateFactor: Int
    private var last: AudioFrameHeader?
    /// Raw audio (an `.ac3` or `.aac` file) has no timestamps of its own: libavformat counts
    /// every frame at the first one's rate, so time is counted here from the frames' lengths.
    private let counting: Bool
    private var counted = 0.0
    private(set) var found: [AudioFormatChange] = []

    /// A scan of `stream`, whose times count from `origin` (in `AV_TIME_BASE` units).
    init(stream: UnsafeMutablePointer<AVStream>, origin: Int64, raw: Bool) {
        counting = raw
        let parameters = stream.pointee.codecpar.pointee
        codec = switch parameters.codec_id {
        case AV_CODEC_ID_AC3: .ac3
        case AV_CODEC_ID_EAC3: .eac3
        case AV_CODEC_ID_AAC: .aac
        case AV_CODEC_ID_MP2, AV_CODEC_ID_MP3: .mpeg
        default: nil
        }
        timeBase = stream.pointee.time_base
        self.origin = origin == sp_av_nopts_value() ? 0 : origin
        rateFactor = parameters.codec_id == AV_CODEC_ID_AAC && parameters.profile == 4 ? 2 : 1
    }

    /// Reads `packet`'s header.
    mutating func add(_ packet: AVPacket) {
        guard let codec, let data = packet.data, packet.size > 0,
              let header = AudioFrameHeader.parse(codec, UnsafeBufferPointer(start: data, count: Int(packet.size))) else { return }
        let start = counted
        counted += Double(header.samples) / Double(header.sampleRate * rateFactor)
        guard !header.sameFormat(as: last) else { return }
        last = header
        let pts = packet.pts != sp_av_nopts_value() ? packet.pts : packet.dts
        let seconds = counting ? start : pts == sp_av_nopts_value() ? (found.last?.time ?? 0)
            : Double(pts) * Double(timeBase.num) / Double(timeBase.den) - Double(origin) / Double(sp_av_time_base())
        found.append(AudioFormatChange(time: max(0, seconds), sampleRate: header.sampleRate * rateFactor,
                                       channels: header.channels, channelLayout: Self.describe(header.mask)))
    }

    /// The formats, when there is more than one.
    var changes: [AudioFormatChange]? { found.count > 1 ? found : nil }

    /// `mask` as libavutil names it (`5.1(side)`), or nil for none.
    static func describe(_ mask: UInt64) -> String? {
        guard mask != 0 else { return nil }
        var layout = AVChannelLayout()
        guard av_channel_layout_from_mask(&layout, mask) >= 0 else { return nil }
        defer { av_channel_layout_uninit(&layout) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_channel_layout_describe(&layout, &buffer, buffer.count) >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Demuxers whose audio may change format mid-stream, and those of them that read raw
    /// audio, with no timestamps of their own.
    private static let changing = ["mpegts", "mpegtsraw", "mpeg", "ac3", "eac3", "aac", "mp3", "mp2"]
    static let raw: Set = ["ac3", "eac3", "aac", "mp3", "mp2"]

    /// Whether `input`'s demuxer is one whose audio may change format (see ``changing``).
    static func mayChange(_ input: InputFormatContext) -> Bool {
        changing.contains(String(cString: input.pointer.pointee.iformat.pointee.name))
    }

    /// Whether `input`'s demuxer reads raw audio (see ``raw``).
    static func isRaw(_ input: InputFormatContext) -> Bool { raw.contains(String(cString: input.pointer.pointee.iformat.pointee.name)) }

    private static let cache = Mutex<[String: [AudioFormatChange]?]>([:])

    /// The cache's key for audio `stream` of the file at `path`: its size and modification time too.
    private static func key(path: String, stream: Int) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(path)|\(stream)|\(size)|\(modified)"
    }

    /// Keeps `scan`, fed every packet of audio `stream` of the file at `path` by another pass
    /// over it (``AudioPacketScan``'s), for ``changes(path:stream:)``.
    static func remember(_ scan: AudioFormatScan, path: String, stream: Int) {
        let key = key(path: path, stream: stream)
        cache.withLock { $0[key] = .some(scan.changes) }
    }

    /// The format changes of audio `stream` of the file at `path` (nil when it keeps one), read
    /// once per file, size and modification time.
    package static func changes(path: String, stream: Int) throws(MediaError) -> [AudioFormatChange]? {
        let key = key(path: path, stream: stream)
        if let known = cache.withLock({ $0[key] }) { return known }
        let input = try InputFormatContext(path: path)
        var result: [AudioFormatChange]?
        if mayChange(input), stream < input.streamCount {
            input.readOnly(stream: stream)
            var scan = AudioFormatScan(stream: input.stream(stream).pointer, origin: input.pointer.pointee.start_time, raw: isRaw(input))
            let packet = try Packet()
            // A damaged tail ends the scan; what was read so far is still true.
            while (try? input.read(into: packet)) == true {
                if Int(packet.pointer.pointee.stream_index) == stream { scan.add(packet.pointer.pointee) }
            }
            result = scan.changes
        }
        cache.withLock { $0[key] = .some(result) }
        return result
    }
}
