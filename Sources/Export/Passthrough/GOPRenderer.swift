import Foundation
internal import Bitstream
internal import CFFmpeg
import Media

/// Re-encodes the frames of a ``SmartCut`` that cannot be copied: for each span of
/// presentation ranks, the source is decoded from the keyframe at or before it (an open GOP's
/// recovery point does: frames shown after it refer to nothing before it), by
/// ``FrameDecoder/frames(_:deliver:)``; the span's frames are taken by their timestamps and
/// encoded by a fresh encoder (``SpliceFormat``), so each span is a closed GOP that starts
/// with an IDR picture. A span's stills are encoded with it: a freeze's held frame once (its
/// output duration is the freeze's), a gap as one black picture.
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
        // Spans only (no single frames asked for, so none needed); damage there is an error.
        let decoder = try FrameDecoder(input: input, stream: index, scan: scan, needed: [], name: name, threads: 1, warning: { _ in })
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
                // Each with the HDR10+ message of the source frame it shows (HEVC only).
                let encode = { (frame: Frame, source: Int) in
                    try encodeShowing(frame.pointer, decoder.dynamicHDR[source])
                }
                for part in span.parts {
                    switch part {
                    case .frames(let ranks, reversed: true):
                        try Self.decodeBackwards(decoder, scan: scan, span: ranks, deliver: encode)
                    case .frames(let ranks, reversed: false):
                        try decoder.frames(ranks, deliver: encode)
                    case .still(let still):
                        if let held = still.held {
                            try decoder.frames(held..<held + 1, deliver: encode)
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
    private static func decodeBackwards(_ decoder: FrameDecoder, scan: VideoScan, span: Range<Int>,
                                        deliver: (Frame, Int) throws -> Void) throws {
        var upper = span.upperBound
        var handed = 0
        while upper > span.lowerBound {
            let lower = max(span.lowerBound, scan.keyframe(before: upper - 1), upper - Self.backwardsWindow)
            var pictures: [(Frame, Int)] = []
            try decoder.frames(lower..<upper) { pictures.append(($0, $1)) }
            for (picture, shown) in pictures.reversed() {
                picture.pointer.pointee.pts = scan.presentationTicks[span.lowerBound + handed]
                try deliver(picture, shown)
                handed += 1
            }
            upper = lower
        }
    }
}
