import Foundation
public import Composition
internal import CFFmpeg

/// The primary video stream of a movie, decoded on demand for playback: ask for the frame that
/// shows at a source time and read its pixels as planar YUV 4:2:0.
///
/// Source time 0 is the stream's first presentation time, as in ``MediaInfo/asset(name:)``.
/// Moving forward decodes forward; moving backward, or far ahead, seeks to the keyframe before
/// the target and decodes from there. ``skipping`` lets a player that cannot keep up drop
/// frames in the decoder itself (non-reference frames, or all but keyframes).
public final class VideoFrameReader {
    /// What the decoder may skip when playback is too fast for every frame to be decoded.
    public enum Skipping: Sendable, Equatable {
        /// Decode every frame.
        case none
        /// Skip frames nothing else refers to (B-frames and the droppable frames of high-frame-rate
        /// phone footage).
        case nonReference
        /// Decode keyframes only.
        case keyframesOnly
    }

    public let path: String
    public let width: Int
    public let height: Int
    /// The nominal frame duration (from the stream's average frame rate), or nil if unknown.
    public let nominalFrameDuration: Double?
    /// "PQ" or "HLG" for HDR video, whose pictures ``withPlanes(_:)`` tone-maps to BT.709 (see
    /// ``ToneMapper``); nil for SDR.
    public let hdrTransfer: String?
    /// Whether HDR pictures are tone-mapped (false when libavfilter cannot be loaded: they are
    /// then only converted, and look washed out).
    public var isToneMapping: Bool { toneMapper != nil }
    /// The size of the pictures ``withPlanes(_:)`` gives: ``width`` × ``height``, unless
    /// ``limitToneMappedPictures(toFit:_:)`` made tone-mapped ones smaller.
    public var pictureWidth: Int { toneMapper?.outputSize?.width ?? width }
    public var pictureHeight: Int { toneMapper?.outputSize?.height ?? height }

    /// Tone-mapped pictures scaled down (same shape, even sizes) to fit `maxWidth` × `maxHeight`:
    /// tone-mapping a large picture costs more than a player can spend on it. SDR pictures keep
    /// their size.
    public func limitToneMappedPictures(toFit maxWidth: Int, _ maxHeight: Int) {
        guard let toneMapper, width > maxWidth || height > maxHeight else { return }
        let scale = min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        let w = max(2, Int((Double(width) * scale / 2).rounded()) * 2), h = max(2, Int((Double(height) * scale / 2).rounded()) * 2)
        toneMapper.outputSize = (w, h)
        convertedFor = nil
    }

    /// The presentation time of the frame ``withPlanes(_:)`` shows, or nil before the first.
    public private(set) var currentTime: Time?
    /// Frames decoded since the reader opened, for tests and statistics.
    public private(set) var decodedFrames = 0
    /// Seeks made since the reader opened.
    public private(set) var seeks = 0

    public var skipping: Skipping = .none

    /// The reading and decoding, which FrameDecoder's exports, stills and smart cuts share.
    private let loop: DecodeLoop
    /// The frame being shown, and the one decoded after it (a look-ahead), if any.
    private var shown: Frame
    private var ahead: Frame
    private var aheadTime: Time?
    private var endOfStream = false
    private let timeBase: AVRational
    /// The stream's first presentation time, in `timeBase` units.
    private let origin: Int64
    /// Conversion to YUV420P for streams in other pixel formats.
    private var scaler: OpaquePointer?
    private var converted: [UnsafeMutablePointer<UInt8>] = []
    private var convertedLinesizes: [Int] = []
    private var convertedFor: Time?
    private let toneMapper: ToneMapper?
    private var mapped: Frame?

    /// Opens video stream `stream` of `url` (its index in the file: a document's primary video
    /// stream, ``MediaInfo/primaryVideo``), or without one the first video stream that is not a
    /// cover picture. `threads` is the decoder's thread count (0 lets libavcodec choose).
    public init(url: URL, stream chosen: Int? = nil, threads: Int = 0) throws(MediaError) {
        path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        let input = try InputFormatContext(path: path)
        var found: Int?
        for i in 0..<input.streamCount where chosen == nil || chosen == i {
            let stream = input.stream(i).pointer.pointee
            if stream.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && (chosen != nil || stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0) {
                found = i
                break
            }
        }
        guard let index = found else { throw .notMedia(path: path, reason: chosen.map { "its stream \($0) is not a video stream" } ?? "it has no video stream") }
        loop = try DecodeLoop(input: input, stream: index, threads: threads)
        let stream = input.stream(index)
        let parameters = stream.parameters.pointee
        guard parameters.width > 0, parameters.height > 0 else { throw .notMedia(path: path, reason: "its video stream has no size") }
        width = Int(parameters.width)
        height = Int(parameters.height)
        timeBase = stream.pointer.pointee.time_base
        let start = stream.pointer.pointee.start_time
        origin = start == sp_av_nopts_value() ? 0 : start
        let rate = stream.pointer.pointee.avg_frame_rate
        nominalFrameDuration = rate.num > 0 && rate.den > 0 ? Double(rate.den) / Double(rate.num) : nil
        hdrTransfer = ToneMapper.transferName(parameters.color_trc)
        toneMapper = hdrTransfer == nil ? nil : try? ToneMapper()
        shown = try Frame()
        ahead = try Frame()
    }

    deinit {
        sws_freeContext(scaler)
        converted.forEach { $0.deallocate() }
    }

    /// Makes the frame that shows at source time `t` current: the last frame whose presentation
    /// time is at or before `t` (the first frame, for times before it). Returns whether the
    /// current frame changed. With ``skipping`` set, the frame may be an earlier one that was not
    /// skipped.
    @discardableResult
    public func show(at t: Time) throws(MediaError) -> Bool {
        let before = currentTime
        // Behind the current frame, or more than two seconds ahead of it: seek, rather than
        // decode everything in between.
        if let current = currentTime {
            let far = (try? current + .seconds(2)) ?? current
            if t < current || t > far { try seek(to: t) }
        } else if t > .zero {
            try seek(to: t)
        }
        if currentTime == nil {
            guard try decodeInto(current: true) else { return false }
        }
        // Step on while the next frame is due.
        while true {
            if aheadTime == nil && !endOfStream {
                guard try decodeInto(current: false) else { break }
            }
            guard let next = aheadTime, next <= t else { break }
            swap(&shown, &ahead)
            currentTime = next
            aheadTime = nil
            av_frame_unref(ahead.pointer)
        }
        return currentTime != before
    }

    /// Calls `body` with the current frame's Y, U and V planes (YUV 4:2:0, ``pictureWidth`` ×
    /// ``pictureHeight``) and their line sizes in bytes. Returns nil if no frame has been decoded.
    public func withPlanes<Result>(_ body: (_ planes: [UnsafePointer<UInt8>], _ linesizes: [Int]) throws -> Result) throws -> Result? {
        guard let currentTime else { return nil }
        if let toneMapper {
            if convertedFor != currentTime {
                mapped = try toneMapper.map(shown)
                convertedFor = currentTime
            }
            if let m = mapped?.pointer.pointee, let y = m.data.0, let u = m.data.1, let v = m.data.2 {
                return try body([UnsafePointer(y), UnsafePointer(u), UnsafePointer(v)],
                                [Int(m.linesize.0), Int(m.linesize.1), Int(m.linesize.2)])
            }
        }
        let f = shown.pointer.pointee
        let format = AVPixelFormat(f.format)
        if (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P), let y = f.data.0, let u = f.data.1, let v = f.data.2 {
            return try body([UnsafePointer(y), UnsafePointer(u), UnsafePointer(v)],
                            [Int(f.linesize.0), Int(f.linesize.1), Int(f.linesize.2)])
        }
        if convertedFor != currentTime { try convert() }
        return try body(converted.map { UnsafePointer($0) }, convertedLinesizes)
    }

    /// Converts the shown frame to YUV420P into `converted`.
    private func convert() throws(MediaError) {
        let f = shown.pointer.pointee
        scaler = sws_getCachedContext(scaler, f.width, f.height, AVPixelFormat(f.format), Int32(width), Int32(height),
                                      AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let scaler else {
            throw .av(path: path, AVFailure(code: sp_averror(EINVAL), operation: "setting up pixel conversion"))
        }
        if converted.isEmpty {
            let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
            convertedLinesizes = [(width + 31) & ~31, (chromaWidth + 31) & ~31, (chromaWidth + 31) & ~31]
            let rows = [height, chromaHeight, chromaHeight]
            converted = (0..<3).map { UnsafeMutablePointer<UInt8>.allocate(capacity: convertedLinesizes[$0] * rows[$0]) }
        }
        var sources: [UnsafePointer<UInt8>?] = [f.data.0, f.data.1, f.data.2, f.data.3].map { $0.map { UnsafePointer($0) } }
        var sourceStrides: [Int32] = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        var targets: [UnsafeMutablePointer<UInt8>?] = converted + [nil]
        var targetStrides: [Int32] = convertedLinesizes.map { Int32($0) } + [0]
        let result = sws_scale(scaler, &sources, &sourceStrides, 0, f.height, &targets, &targetStrides)
        guard result > 0 else { throw .av(path: path, AVFailure(code: result, operation: "converting pixels")) }
        convertedFor = currentTime
    }

    /// Seeks to the keyframe at or before `t` and decodes its first frame as the current one.
    private func seek(to t: Time) throws(MediaError) {
        seeks += 1
        let ticks = sourceTicks(t)
        if loop.input.seek(stream: loop.stream, to: ticks) < 0 { loop.input.seek(stream: loop.stream, to: Int64.min / 2) }
        loop.restart()
        av_frame_unref(shown.pointer)
        av_frame_unref(ahead.pointer)
        currentTime = nil
        aheadTime = nil
        convertedFor = nil
        endOfStream = false
        _ = try decodeInto(current: true)
    }

    private func sourceTicks(_ t: Time) -> Int64 {
        // ticks = t × den / num + origin, rounded down.
        let seconds = t.exactSeconds ?? .zero
        let num = Int64(timeBase.num), den = Int64(timeBase.den)
        let (high, low) = seconds.numerator.multipliedFullWidth(by: den)
        let divisor = seconds.denominator * num
        guard high == 0 || high == -1, divisor != 0 else { return origin }
        let product = Int64(bitPattern: low)
        var q = product / divisor
        if product % divisor != 0 && (product < 0) != (divisor < 0) { q -= 1 }
        return q + origin
    }

    private func time(ofTicks ticks: Int64) -> Time {
        let relative = ticks - origin
        return Time(value: relative * Int64(timeBase.num), timescale: timeBase.den)
    }

    /// Decodes the next frame into the shown frame (`current`) or the look-ahead; false at the
    /// end of the stream. A damaged frame or packet is skipped, as players do.
    private func decodeInto(current: Bool) throws(MediaError) -> Bool {
        let target = current ? shown : ahead
        let discard = switch skipping {
        case .none: AVDISCARD_DEFAULT
        case .nonReference: AVDISCARD_NONREF
        case .keyframesOnly: AVDISCARD_NONKEY
        }
        while true {
            switch loop.step(into: target, discard: { _ in discard }) {
            case .frame:
                decodedFrames += 1
                let pts = target.pointer.pointee.best_effort_timestamp
                let t = time(ofTicks: pts == sp_av_nopts_value() ? origin : pts)
                if current {
                    currentTime = t
                    convertedFor = nil
                } else {
                    aheadTime = t
                }
                return true
            case .endOfStream:
                endOfStream = true
                return false
            case .unreadable(let error):
                throw error
            case .fed, .refused, .damaged:
                continue
            }
        }
    }
}
