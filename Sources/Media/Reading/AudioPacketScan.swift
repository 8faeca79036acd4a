import Foundation
import Composition
import Synchronization
internal import CFFmpeg

/// Every packet of one audio stream, in samples, from a demux-only pass that skips the other
/// streams (for smart audio: ``AudioSplicePlan``).
///
/// Positions come from the codec, not only from the container's timestamps: Matroska states
/// times in milliseconds, which cannot place a 1024-sample AAC frame to the sample. Each packet
/// starts where the one before it ends; a timestamp more than one tick away from that starts
/// afresh (a gap or a jump in the stream), at its own time.
package struct AudioPacketScan {
    package let packets: [AudioSourcePacket]
    /// The codec's frame length in samples, or 1 for PCM.
    package let frame: Int
    /// The stream's average bit rate from its packets, or nil when it has none.
    package let bitRate: Int?
    /// Where each packet's bytes lie in the file (``SampleFile``), and the packets an edit list
    /// hides (AAC's priming), when the file's index says so and every packet is a keyframe:
    /// then copying reads them from there.
    package let locations: (positions: [Int64], sizes: [Int32], discarded: Set<Int>)?

    /// Scans audio stream `stream` of the movie at `path`; nil when its packets have no fixed
    /// length in samples that slowpoke knows (only fixed-frame codecs and PCM are spliced).
    init?(path: String, stream: Int, readingIndex: Bool = true) throws {
        let input = try InputFormatContext(path: path)
        let parameters = input.stream(stream).parameters.pointee
        let timeBase = input.stream(stream).pointer.pointee.time_base
        let rate = AVRational(num: 1, den: parameters.sample_rate)
        // PCM codecs are numbered from pcm_s16le up to the first ADPCM one.
        let pcm = parameters.codec_id.rawValue >= AV_CODEC_ID_PCM_S16LE.rawValue && parameters.codec_id.rawValue < AV_CODEC_ID_ADPCM_IMA_QT.rawValue
        // Bytes per sample frame: mov leaves block_align 0 but states the sample size.
        let bytesPerFrame = parameters.block_align > 0 ? Int(parameters.block_align)
            : Int(parameters.bits_per_coded_sample / 8) * Int(parameters.ch_layout.nb_channels)
        // Opus states no frame size: its packets say their length; 20 ms is libopus's default.
        let opus = parameters.codec_id == AV_CODEC_ID_OPUS && parameters.sample_rate == 48000
        guard parameters.sample_rate > 0, pcm ? bytesPerFrame > 0 : (opus || parameters.frame_size > 0) else { return nil }
        frame = pcm ? 1 : opus ? 960 : Int(parameters.frame_size)
        // Opus's first packet starts exactly its pre-skip before 0, which Matroska's
        // millisecond stamp only rounds.
        let preSkip = opus ? parameters.extradata.flatMap { OpusPacket.preSkip(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } : nil
        let tick = max(1, av_rescale_q_rnd(1, timeBase, rate, AV_ROUND_UP))
        var found: [AudioSourcePacket] = []
        var expected: Int64?
        var bytes: Int64 = 0
        var locations: (positions: [Int64], sizes: [Int32], discarded: Set<Int>)?
        /// Lists a packet presented at `pts` (stream ticks), of `size` bytes, `count` samples long.
        func add(pts: Int64, size: Int32, count: Int64, corrupt: Bool) {
            var stated = pts != sp_av_nopts_value() ? av_rescale_q(pts, timeBase, rate) : expected
            if found.isEmpty, let preSkip, let first = stated, abs(first + Int64(preSkip)) <= tick { stated = -Int64(preSkip) }
            // Every packet is listed, so that a reader counting packets finds the same ones.
            var start = stated ?? 0
            let unusable = stated == nil || corrupt || count <= 0
            // Within a tick of where the one before ends, it follows on; further away, the
            // stream's clock jumps (recordings joined, a looped copy) and it starts afresh at its
            // own time, where it is copied as the source plays it.
            if let expected, abs(start - expected) <= tick { start = expected }
            found.append(AudioSourcePacket(start: start, count: count, unusable: unusable))
            bytes += Int64(size)
            expected = start + count
        }
        // An mp4's index states every packet's time and size: only Opus needs its packets read.
        var moved = false
        if readingIndex, !opus, let indexed = IndexedPackets(input, streams: [stream], moved: &moved)?.streams.first {
            found.reserveCapacity(indexed.pts.count)
            for i in indexed.pts.indices {
                add(pts: indexed.pts[i], size: indexed.sizes[i], count: pcm ? Int64(Int(indexed.sizes[i]) / bytesPerFrame) : Int64(frame), corrupt: false)
            }
            if indexed.allKeyframes {
                locations = (indexed.positions, indexed.sizes, Set(indexed.discarded.indices.filter { indexed.discarded[$0] }))
            }
        } else {
            // Where checking the index read packets, they are read again from the start.
            let input = moved ? try InputFormatContext(path: path) : input
            input.readOnly(stream: stream)
            // A container whose audio may change format is read once for both scans.
            var formats = AudioFormatScan.mayChange(input)
                ? AudioFormatScan(stream: input.stream(stream).pointer, origin: input.pointer.pointee.start_time, raw: AudioFormatScan.isRaw(input)) : nil
            let packet = try Packet()
            while try input.read(into: packet) {
                let p = packet.pointer.pointee
                guard Int(p.stream_index) == stream else { continue }
                formats?.add(p)
                let count = pcm ? Int64(Int(p.size) / bytesPerFrame)
                    : opus ? Int64(p.data.flatMap { OpusPacket.samples(UnsafeBufferPointer(start: $0, count: Int(p.size))) } ?? 0)
                    : Int64(frame)
                add(pts: p.pts, size: p.size, count: count, corrupt: p.flags & AV_PKT_FLAG_CORRUPT != 0)
            }
            if let formats { AudioFormatScan.remember(formats, path: path, stream: stream) }
        }
        packets = found
        self.locations = locations
        let samples = found.reduce(Int64(0)) { $0 + $1.count }
        bitRate = samples > 0 ? Int(bytes * 8 * Int64(parameters.sample_rate) / samples) : nil
    }
}

extension AudioPacketScan {
    private static let cache = Mutex<[String: AudioPacketScan]>([:])

    /// The scan of audio stream `stream` of the movie at `path`, made once per file (its size
    /// and modification time) and stream: the plan's fit and smart audio read the same packets.
    package static func scanned(path: String, stream: Int) throws -> AudioPacketScan? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let key = "\(path)|\(stream)|\((attributes?[.size] as? NSNumber)?.int64Value ?? 0)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let known = cache.withLock({ $0[key] }) { return known }
        guard let scan = try AudioPacketScan(path: path, stream: stream) else { return nil }
        cache.withLock { $0[key] = scan }
        return scan
    }

    /// Where the packets' frame grid lies along the source (``SourceGrid``), at `sampleRate`;
    /// nil when it never changes (or the codec has no frames), where fitting needs no help.
    package func sourceGrid(sampleRate: Int32) -> SourceGrid? {
        guard frame > 1, sampleRate > 0 else { return nil }
        let f = Int64(frame)
        var changes: [(start: Time, phase: Time)] = []
        var last: Int64?
        for packet in packets where !packet.unusable {
            let phase = ((packet.start % f) + f) % f
            guard phase != last else { continue }
            changes.append((Time(value: packet.start, timescale: sampleRate), Time(value: phase, timescale: sampleRate)))
            last = phase
        }
        return changes.count > 1 ? SourceGrid(changes: changes) : nil
    }
}
