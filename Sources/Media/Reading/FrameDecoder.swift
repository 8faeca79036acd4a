import Foundation
package import Bitstream
internal import CFFmpeg

/// Decodes the frames of one video stream by their presentation index, in any order, for the
/// constant-rate export. Forward requests decode onwards; a request behind the decoder, or past
/// the next keyframe, seeks. Frames nobody needs are skipped inside the decoder where that is
/// safe (non-reference frames), and never converted.
///
/// Played ``backwards`` (a reversed range), a frame not at hand starts a window that ends with
/// it: the decoder seeks to the keyframe before the window, decodes up to the frame and keeps
/// only the window's frames, which the next requests take last to first; the one below the
/// window starts the window before it. A window is the frame's GOP, or ``windowFrames`` when
/// the GOP is longer (then its keyframe is decoded from again for each window), so memory is
/// bounded whatever the range's length and the stream's GOP.
package final class FrameDecoder {
    /// The reading and decoding; its decoder is opened afresh for each span of
    /// ``frames(_:deliver:)``.
    private let loop: DecodeLoop
    private var input: InputFormatContext { loop.input }
    private var stream: Int { loop.stream }
    private let scan: VideoScan
    private let needed: [Bool]
    private let warning: (String) -> Void
    private let name: String
    /// Decoded frames kept for reuse, by index; the newest few.
    private var cache: [Int: Frame] = [:]
    /// The index of the last frame the decoder produced since the start or the last seek.
    private var position = -1
    private var finished = false
    /// Whether a decoding error ends the decoding instead of being skipped with a warning (the
    /// frames of a frame-exact cut, ``frames(_:deliver:)``), and no packet is skipped.
    private var exact = false
    /// How many frames were decoded, and how many the decoder skipped.
    package private(set) var decodedCount = 0
    /// Whether frames are asked for last to first (a reversed range).
    package var backwards = false
    /// Decoded frames kept below the one asked for: none going forwards; the window's start
    /// going backwards.
    private var keepFrom = 0
    /// The most frames a backward window holds: what fits ``windowBytes``, at least 4.
    let windowFrames: Int
    /// The HDR10+ message of each source frame read so far, by index (HEVC only).
    package private(set) var dynamicHDR: [Int: HDR10PlusSEI] = [:]
    /// Whether the stream is HEVC, and its samples' length prefix (nil: Annex B).
    private let hevc: Bool
    private let lengthSize: Int?
    /// The decoded pictures a backward window may hold, in bytes (about 50 frames of 1080p).
    static let windowBytes = 160 << 20

    /// Decodes from `input`, wherever its read position is (such as the end, after a scan): the
    /// first request seeks. `threads` is the decoder's thread count.
    package init(input: InputFormatContext, stream: Int, scan: VideoScan, needed: [Bool], name: String,
                 threads: Int = FrameDecoder.threadCount(), warning: @escaping (String) -> Void) throws {
        finished = true
        loop = try DecodeLoop(input: input, stream: stream, threads: threads)
        self.scan = scan
        self.needed = needed
        self.name = name
        self.warning = warning
        let parameters = input.stream(stream).parameters.pointee
        hevc = parameters.codec_id == AV_CODEC_ID_HEVC
        lengthSize = HDR10PlusSEI.lengthSize(of: input.stream(stream))
        let size = av_image_get_buffer_size(AVPixelFormat(rawValue: parameters.format), parameters.width, parameters.height, 1)
        let bytes = size > 0 ? Int(size) : max(1, Int(parameters.width) * Int(parameters.height) * 3)
        windowFrames = max(4, Self.windowBytes / bytes)
    }

    /// Decoding threads: the encoder is the bottleneck and already keeps every core busy with its
    /// own frame threads, while libavcodec's frame threading costs about a quarter more CPU
    /// per decoded frame (measured on the bench movie: 8.8 s against 6.8 s single-threaded).
    /// So decoding gets one thread per four cores, and on small machines just this one.
    package static func threadCount(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        max(1, cores / 4)
    }

    /// Source frame `i`, decoded. When it cannot be decoded (damage), the nearest earlier frame
    /// that could, with a warning.
    package func frame(_ i: Int) throws -> Frame {
        if let hit = cache[i] { return hit }
        var key = scan.keyframe(before: i)
        keepFrom = 0
        if backwards {
            // The window ending with i: its GOP, or as much of it as the window holds.
            keepFrom = max(key, i - windowFrames + 1)
            key = scan.keyframe(before: keepFrom)
        }
        if i <= position || key > position + 1 || finished {
            try seek(toFrame: key)
        }
        while true {
            if let hit = cache[i] { return hit }
            if position >= i || finished {
                // The frame never came out: use the closest one that did.
                if let fallback = cache.keys.filter({ $0 <= i }).max() ?? cache.keys.min() {
                    warning("frame at \(seconds(i)) s of \(name) could not be decoded; showing the one at \(seconds(fallback)) s")
                    let f = cache[fallback]!
                    cache[i] = f
                    return f
                }
                throw MediaError.notMedia(path: name, reason: "no video frame near \(seconds(i)) s could be decoded")
            }
            if let (frame, index) = try step(wanted: i), needed[index] && index >= keepFrom || index == i { cache[index] = frame }
        }
    }

    /// The stream being decoded.
    package var decoderStream: StreamView { input.stream(stream) }

    /// The frames of `span` (presentation ranks) for a frame-exact cut, handed to `deliver` in
    /// order with their indices (each frame's `pts` its presentation ticks), decoded from the
    /// keyframe before the span; where the decoder gives a frame of the span not from there,
    /// the frames from that one on are decoded from a keyframe earlier, back to the first: a
    /// recovery point of an intra-refresh stream gives whole pictures only a refresh period after
    /// it, and x264's open-GOP P picture after an I picture's leading B pictures may refer to one
    /// of them (the last frame of a CAVLC B-pyramid stream, cut after its last I picture, was
    /// refused). Damage is an error here, not a warning, and every packet is decoded.
    package func frames(_ span: Range<Int>, deliver: (Frame, Int) throws -> Void) throws {
        var key = scan.keyframe(before: span.lowerBound)
        var rest = span
        while true {
            do {
                return try frames(rest, from: key, deliver: deliver)
            } catch let missing as NotWholeYet {
                guard key > 0 else { throw missing.error }
                rest = missing.next..<span.upperBound
                key = scan.keyframe(before: key - 1)
            }
        }
    }

    /// Decoding from a keyframe did not give frame `next` of a span (those before it were
    /// delivered): an earlier start may give it.
    private struct NotWholeYet: Error {
        let error: MediaError
        let next: Int
    }

    /// The frames of `span` decoded from keyframe `key` by ``step(wanted:)``, ``exact``ly.
    private func frames(_ span: Range<Int>, from key: Int, deliver: (Frame, Int) throws -> Void) throws {
        exact = true
        defer { exact = false }
        try start(atKeyframe: key)
        var next = span.lowerBound
        while next < span.upperBound && !finished {
            guard let (frame, index) = try step(wanted: next), index >= next, index < span.upperBound else { continue }
            guard index == next else {
                let error = MediaError.unsupported("\(name): the frame at \(scan.presentationTimes[next]) could not be decoded for a frame-exact cut")
                throw NotWholeYet(error: error, next: next)
            }
            frame.pointer.pointee.pts = scan.presentationTicks[index]
            try deliver(frame, index)
            next += 1
        }
        guard next == span.upperBound else {
            let error = MediaError.unsupported("\(name): \(span.upperBound - next) frames from \(scan.presentationTimes[next]) could not be decoded for a frame-exact cut")
            throw NotWholeYet(error: error, next: next)
        }
    }

    /// Positions a decoder opened afresh on keyframe `key` itself and sends it that keyframe:
    /// packets before it (an imprecise seek) are not fed, nor is an earlier keyframe the seek
    /// lands on, and when the keyframe is never read the decoding is ``finished`` with nothing.
    /// Afresh, not flushed: a flushed decoder keeps what it learnt of the stream (parameter
    /// sets, recovery points), and a cut's frames are what decoding from `key` alone gives.
    private func start(atKeyframe key: Int) throws {
        let target = scan.presentationTicks[key]
        if input.seek(stream: stream, to: target) < 0 {
            _ = LibAVFormat.seekFile(input.pointer, -1, Int64.min, 0, 0, 0)
        }
        try loop.reopen()
        (finished, position) = (false, key - 1)
        while try loop.nextPacket() {
            let p = loop.packet.pointer.pointee
            guard p.flags & AV_PKT_FLAG_KEY != 0, p.pts == target else { continue }
            return try send(skipping: false, at: key)
        }
        finished = true
    }

    /// Forgets cached frames the export has left behind: before `i` going forwards, after it
    /// going ``backwards``.
    package func release(behind i: Int) {
        for key in cache.keys where backwards ? key > i : key < i { cache[key] = nil }
        // HDR10+ messages a frame further: a blend asks for its nearer frame's after releasing.
        for key in dynamicHDR.keys where backwards ? key > i + 1 : key < i - 1 { dynamicHDR[key] = nil }
    }

    private func seconds(_ i: Int) -> String { String(format: "%.3f", scan.presentationTimes[i].seconds) }

    /// Positions the decoder on the keyframe `key`, or one before it. Seeking in some formats
    /// is imprecise (MPEG-TS seeks by byte position and can land past the keyframe asked for,
    /// mid-GOP): packets before the first keyframe read are dropped, and when that keyframe
    /// comes after `key`, the seek goes back a keyframe at a time, to the start at the last.
    private func seek(toFrame key: Int) throws {
        let target = scan.presentationTicks[key]
        var aim = key
        for attempt in 0... {
            // Far before the start: the first packet.
            let fromTop = attempt >= 6 || aim == 0
            let ticks = fromTop ? -(Int64(1) << 40) : scan.presentationTicks[aim]
            var result = input.seek(stream: stream, to: ticks)
            if result < 0 && fromTop {
                // AVI refuses a time before its index starts: the first frame's, else the file's start.
                result = input.seek(stream: stream, to: scan.presentationTicks.first ?? 0)
                if result < 0 { result = LibAVFormat.seekFile(input.pointer, -1, Int64.min, 0, 0, 0) }
            }
            if result < 0 { throw MediaError.av(path: name, AVFailure(code: result, operation: "seeking")) }
            loop.restart()
            finished = false
            // The first keyframe packet of the stream from here.
            var found: Int64?
            while found == nil {
                let more: Bool
                do { more = try loop.nextPacket() } catch { more = false }
                guard more else { break }
                let p = loop.packet.pointer.pointee
                guard p.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                found = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            }
            if found == nil && fromTop { finished = true; position = key - 1; return }
            if let landed = found, landed <= target || fromTop {
                position = (scan.frame(ticks: landed) ?? key) - 1
                try send(skipping: false, at: position + 1)
                return
            }
            aim = aim > 0 ? scan.keyframe(before: aim - 1) : 0
        }
    }

    /// Feeds one packet or takes one frame, through the ``DecodeLoop``: the frame taken, with
    /// its index, when it is one of the scan's. The step every request of this class decodes with.
    private func step(wanted: Int) throws -> (Frame, Int)? {
        let frame = try Frame()
        switch loop.step(into: frame, discard: { prepare($0, wanted: wanted) }) {
        case .frame:
            decodedCount += 1
            let ticks = frame.pointer.pointee.pts != sp_av_nopts_value() ? frame.pointer.pointee.pts : frame.pointer.pointee.best_effort_timestamp
            guard let index = scan.frame(ticks: ticks) else { return nil }
            if index > position { position = index }
            return (frame, index)
        case .damaged(let error):
            if exact { throw MediaError.av(path: name, error) }
            warning("damaged video near \(seconds(max(0, position))) s of \(name): \(error.message); skipped")
        case .refused(let failure):
            try refused(failure, at: index(of: loop.packet))
        case .unreadable(let error):
            if exact { throw error }
            warning("stopped reading \(name) at a damaged packet: \(error)")
            loop.drain()
        case .endOfStream:
            finished = true
        case .fed:
            break
        }
        return nil
    }

    /// The frame a packet holds, by its presentation time.
    private func index(of packet: Packet) -> Int? {
        let pts = packet.pointer.pointee.pts
        return pts != sp_av_nopts_value() ? scan.frame(ticks: pts) : nil
    }

    /// What the decoder may skip of `packet`, about to be sent: a frame no output needs, and
    /// that no other frame refers to, is not decoded. Its HDR10+ message is kept.
    private func prepare(_ packet: Packet, wanted: Int) -> AVDiscard {
        let index = index(of: packet)
        keepHDR(of: index)
        let skippable = !exact && (index.map { !needed[$0] && $0 != wanted } ?? false)
        return skippable ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
    }

    private func keepHDR(of index: Int?) {
        if hevc, let index, let found = HDR10PlusSEI.find(in: loop.packet.pointer, lengthSize: lengthSize) { dynamicHDR[index] = found }
    }

    /// Sends the packet read last to the decoder, whole (a keyframe the decoding starts at).
    private func send(skipping: Bool, at index: Int?) throws {
        keepHDR(of: index)
        if let failure = loop.send(discard: skipping ? AVDISCARD_NONREF : AVDISCARD_DEFAULT) { try refused(failure, at: index) }
    }

    /// A packet the decoder refused is skipped with a warning naming frame `index` (an error for
    /// an ``exact`` decoding).
    private func refused(_ failure: AVFailure, at index: Int?) throws {
        if exact { throw MediaError.av(path: name, AVFailure(code: failure.code, operation: "decoding at a cut")) }
        let at = index.map { seconds(max(0, $0)) } ?? "?"
        warning("damaged video packet at \(at) s of \(name): \(AVFailure(code: failure.code, operation: "decoding").message); skipped")
    }
}
