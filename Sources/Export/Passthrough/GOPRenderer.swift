import Foundation
internal import Bitstream
internal import CFFmpeg
import Media

/// Re-encodes the frames of a ``SmartCut`` that cannot be copied: for each span of
/// presentation ranks, the source is decoded from the keyframe at or before it (an open GOP's
/// recovery point does: frames shown after it refer to nothing before it), the span's frames
/// are taken by their timestamps and encoded by a fresh encoder (``SpliceFormat``), so each span is a
/// closed GOP that starts with an IDR picture. A span's stills are encoded with it: a freeze's
/// held frame once (its output duration is the freeze's), a gap as one black picture.
struct GOPRenderer {
    /// Each span's samples (length-prefixed NAL units), one a frame, in the order shown.
    let samples: SampleSpool
    /// How the re-encoded pictures' parameter sets live beside the stream's.
    let format: SpliceFormat
    /// The output's configuration record (``SpliceFormat/record(after:)``).
    let record: [UInt8]

    init(movie: URL, stream index: Int, scan: VideoScan, spans: [SmartCut.Span], name: String) throws {
        let input = try InputFormatContext(path: movie.path)
        input.readOnly(stream: index)
        let stream = input.stream(index)
        let format = try SpliceFormat(stream, name: name)
        let timeBase = stream.pointer.pointee.time_base
        let rate = stream.pointer.pointee.avg_frame_rate
        let samples = try SampleSpool()
        var last: (any SpliceEncoding)?
        // HDR10+ messages of the source's packets, by presentation time, for the frames shown.
        let hevc = stream.parameters.pointee.codec_id == AV_CODEC_ID_HEVC, lengthSize = HDR10PlusSEI.lengthSize(of: stream)
        var dynamic: [Int64: HDR10PlusSEI] = [:]
        let note = { (packet: UnsafePointer<AVPacket>) in
            if hevc, let found = HDR10PlusSEI.find(in: packet, lengthSize: lengthSize) { dynamic[packet.pointee.pts] = found }
        }
        // The encoder's output must not depend on the process's past (see FilledAllocations).
        try FilledAllocations.during {
            for span in spans {
                let encoder = try format.encoder(for: stream, timeBase: timeBase, frameRate: rate, name: name)
                last = last ?? encoder
                samples.startSpan()
                var failure: (any Error)?
                // The encoder makes no B-frames: its pictures come out in the order they went in,
                // each with the HDR10+ message of the source frame it shows.
                var pending: [HDR10PlusSEI?] = []
                let keep = { (units: [[UInt8]]) in
                    let sei = pending.isEmpty ? nil : pending.removeFirst()
                    do { try samples.append(LengthPrefixedUnits.sample(sei?.inserted(into: units) ?? units, lengthSize: format.lengthSize)) } catch {
                        failure = failure ?? error
                    }
                }
                // The encoder sees time run forwards across the span's parts.
                var lastPTS: Int64?
                let encodeShowing = { (frame: UnsafeMutablePointer<AVFrame>, sei: HDR10PlusSEI?) in
                    pending.append(sei)
                    if let last = lastPTS, frame.pointee.pts <= last { frame.pointee.pts = last + 1 }
                    lastPTS = frame.pointee.pts
                    try encoder.encode(frame, deliver: keep)
                }
                let encode = { (frame: UnsafeMutablePointer<AVFrame>, sourceTicks: Int64) in
                    try encodeShowing(frame, dynamic.removeValue(forKey: sourceTicks))
                }
                for part in span.parts {
                    switch part {
                    case .frames(let ranks, reversed: true):
                        try Self.decodeBackwards(input, stream: index, scan: scan, span: ranks, name: name, note: note, deliver: encode)
                    case .frames(let ranks, reversed: false):
                        try Self.decode(input, stream: index, scan: scan, span: ranks, name: name, note: note, deliver: encode)
                    case .still(let still):
                        if let held = still.held {
                            try Self.decode(input, stream: index, scan: scan, span: held..<held + 1, name: name, note: note, deliver: encode)
                        } else {
                            let black = try BlackPicture.make(like: stream.parameters)
                            black.pointer.pointee.pts = (lastPTS ?? 0) + 1
                            try encodeShowing(black.pointer, nil)
                        }
                    }
                }
                try encoder.encode(nil, deliver: keep)
                if let failure { throw failure }
                let made = samples.count(samples.spans - 1)
                guard made == span.count else {
                    throw ExportError.unsupported("re-encoding \(span.count) frames of \(name) at a cut gave \(made)")
                }
            }
        }
        self.samples = samples
        self.format = format
        record = format.record(after: last)
    }

    /// Pictures a reversed span holds at once (about 100 MB at 1080p).
    static let backwardsWindow = 32

    /// Decodes the frames of a reversed `span` and hands them to `deliver` last first: a GOP at
    /// a time from the span's end, or the last ``backwardsWindow`` frames of what is left of
    /// one (each window decoded from its GOP's keyframe, its pictures held until it is done),
    /// so memory holds a window of pictures whatever the span's or the GOP's length; a long GOP
    /// costs more decoding instead. The frames are stamped with the span's presentation times
    /// in the order they are handed on, so the encoder sees time run forwards.
    private static func decodeBackwards(_ input: InputFormatContext, stream index: Int, scan: VideoScan, span: Range<Int>,
                                        name: String, note: (UnsafePointer<AVPacket>) -> Void,
                                        deliver: (UnsafeMutablePointer<AVFrame>, Int64) throws -> Void) throws {
        var upper = span.upperBound
        var handed = 0
        while upper > span.lowerBound {
            let lower = max(span.lowerBound, scan.keyframe(before: upper - 1), upper - Self.backwardsWindow)
            var pictures: [Frame] = []
            try decode(input, stream: index, scan: scan, span: lower..<upper, name: name, note: note) { frame, _ in
                guard let copy = av_frame_clone(frame) else {
                    throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "keeping a decoded frame to play it backwards"))
                }
                pictures.append(Frame(owning: copy))
            }
            for picture in pictures.reversed() {
                let shown = picture.pointer.pointee.pts
                picture.pointer.pointee.pts = scan.presentationTicks[span.lowerBound + handed]
                try deliver(picture.pointer, shown)
                handed += 1
            }
            upper = lower
        }
    }

    /// Decodes the frames of `span` (presentation ranks) and hands them to `deliver` in order,
    /// starting at the keyframe before it; where the decoder gives a frame of the span not from
    /// there, the frames from that one on are decoded from a keyframe earlier, back to the first:
    /// a recovery point of an intra-refresh stream gives whole pictures only a refresh period
    /// after it, and x264's open-GOP P picture after an I picture's leading B pictures may refer
    /// to one of them (the last frame of a CAVLC B-pyramid stream, cut after its last I picture,
    /// was refused).
    private static func decode(_ input: InputFormatContext, stream index: Int, scan: VideoScan, span: Range<Int>, name: String,
                               note: (UnsafePointer<AVPacket>) -> Void,
                               deliver: (UnsafeMutablePointer<AVFrame>, Int64) throws -> Void) throws {
        var key = scan.keyframe(before: span.lowerBound)
        var rest = span
        while true {
            do {
                return try decode(input, stream: index, scan: scan, span: rest, from: key, name: name, note: note, deliver: deliver)
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
        let error: ExportError
        let next: Int
    }

    private static func decode(_ input: InputFormatContext, stream index: Int, scan: VideoScan, span: Range<Int>, from key: Int,
                               name: String, note: (UnsafePointer<AVPacket>) -> Void,
                               deliver: (UnsafeMutablePointer<AVFrame>, Int64) throws -> Void) throws {
        let keyTicks = scan.presentationTicks[key]
        if input.seek(stream: index, to: keyTicks) < 0 {
            _ = LibAVFormat.seekFile(input.pointer, -1, Int64.min, 0, 0, 0)
        }
        let decoder = try CodecContext.decoder(for: input.stream(index), threads: 1)
        let packet = try Packet()
        let frame = try Frame()
        var started = false
        var next = span.lowerBound
        var draining = false
        func receive() throws {
            while next < span.upperBound {
                let got: CodecContext.Step
                do { got = try decoder.receive(frame) } catch {
                    throw ExportError.av(path: name, error)
                }
                guard got == .ok else { return }
                defer { av_frame_unref(frame.pointer) }
                let f = frame.pointer.pointee
                let ticks = f.pts != sp_av_nopts_value() ? f.pts : f.best_effort_timestamp
                guard let rank = scan.frame(ticks: ticks), rank >= next, rank < span.upperBound else { continue }
                guard rank == next else {
                    let error = ExportError.unsupported("\(name): the frame at \(scan.presentationTimes[next]) could not be decoded for a frame-exact cut")
                    throw NotWholeYet(error: error, next: next)
                }
                frame.pointer.pointee.pts = ticks
                try deliver(frame.pointer, ticks)
                next += 1
            }
        }
        while next < span.upperBound && !draining {
            if try input.read(into: packet) {
                let p = packet.pointer.pointee
                guard Int(p.stream_index) == index else { continue }
                if !started {
                    // Packets before the keyframe (an imprecise seek) are not fed.
                    guard p.flags & AV_PKT_FLAG_KEY != 0, p.pts == keyTicks else { continue }
                    started = true
                }
                note(packet.pointer)
                let sent = decoder.send(packet)
                if sent < 0 && sent != sp_averror_eagain() { throw ExportError.av(path: name, AVFailure(code: sent, operation: "decoding at a cut")) }
            } else {
                draining = true
                _ = decoder.send(nil)
            }
            try receive()
        }
        guard next == span.upperBound else {
            let error = ExportError.unsupported("\(name): \(span.upperBound - next) frames from \(scan.presentationTimes[next]) could not be decoded for a frame-exact cut")
            throw NotWholeYet(error: error, next: next)
        }
    }
}
