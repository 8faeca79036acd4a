import Composition
import Media

/// Which source pictures make each output frame of a constant-rate export. Output frame k sits
/// at composition time k/N and shows the picture whose presentation interval holds the source
/// time mapped back from k/N: sample and hold, decided in exact rational time. A picture is a
/// source frame, or a field of an interlaced one (see ``PictureTimes``).
struct FramePlan {
    enum Source: Equatable {
        /// Black: the composition has a gap here.
        case gap
        case frame(Int)
        /// Frames `a` and `b` mixed, `weight` of `b`.
        case blend(Int, Int, weight: Double)
        /// An in-between frame synthesised by motion interpolation, `weight` of the way from
        /// frame `a` to frame `b` (see ``FlowInterpolator``).
        case interpolate(Int, Int, weight: Double)
    }

    let fps: Rational
    let count: Int
    let sources: [Source]
    /// Whether output frame k plays a reversed segment: its pictures are asked for backwards.
    let backwards: [Bool]
    /// Whether picture i is needed by any output frame.
    let needed: [Bool]

    /// The time of output frame k.
    static func time(of k: Int, fps: Rational) throws(CompositionError) -> Time {
        try Time(value: Int64(k), timescale: 1).multiplied(by: fps.reciprocal)
    }

    /// The plan over the frames of `scan`, one picture each.
    init(track: CompositionTrack, scan: VideoScan, fps: Rational, selection: FrameSelection) throws {
        try self.init(track: track, pictures: PictureTimes(scan: scan, fields: false), fps: fps, selection: selection)
    }

    init(track: CompositionTrack, pictures: PictureTimes, fps: Rational, selection: FrameSelection) throws {
        self.fps = fps
        // round(duration × N), halves up: the last frame starts before the end.
        let frames = try track.duration.multiplied(by: fps)
        count = Int(try frames.rescaled(to: 2, rounding: .down).value + 1) / 2
        var sources: [Source] = []
        sources.reserveCapacity(count)
        var backwards = [Bool](repeating: false, count: count)
        var needed = [Bool](repeating: false, count: pictures.count)
        let times = pictures.times
        for k in 0..<count {
            let t = try Self.time(of: k, fps: fps)
            // Rates stacked so deep that the exact source time does not fit: the nearest tick of
            // the source's own timescale picks the same frame but for a tie within that tick.
            let p = try Self.presentation(of: track, at: t, timescale: Int32(min(Int64(max(pictures.timescale, 1)) * 8, Int64(Int32.max))))
            if let p, let held = p.segment.heldTime {
                // A hold repeats the frame on screen at its held time.
                let i = pictures.picture(at: held)
                sources.append(.frame(i))
                needed[i] = true
                continue
            }
            guard let p, let s = p.sourceTime, let range = p.segment.source, let rate = p.rate else {
                sources.append(.gap)
                continue
            }
            if p.segment.isReversed {
                backwards[k] = true
                let source = try Self.backwards(track: track, p, s: s, range: range, rate: rate, pictures: pictures, selection: selection)
                sources.append(source)
                for i in source.pictures { needed[i] = true }
                continue
            }
            let i = pictures.picture(at: s)
            let j = i + 1
            // Mixing reaches only frames that play next: inside this segment's source range, or
            // at the start of a following segment that continues the same source. Never removed ones.
            let continues = p.segmentIndex + 1 < track.segments.count && !track.segments[p.segmentIndex + 1].isReversed
                && track.segments[p.segmentIndex + 1].source?.start == range.end
            let between = j < times.count && times[i] < s && (times[j] < range.end || continues)
            switch selection {
            case .blend where between:
                sources.append(.blend(i, j, weight: try (s - times[i]).seconds / (times[j] - times[i]).seconds))
                needed[i] = true
                needed[j] = true
            case .interpolate where between && rate < .one:
                sources.append(.interpolate(i, j, weight: try (s - times[i]).seconds / (times[j] - times[i]).seconds))
                needed[i] = true
                needed[j] = true
            default:
                sources.append(.frame(i))
                needed[i] = true
            }
        }
        self.sources = sources
        self.backwards = backwards
        self.needed = needed
    }

    private static func presentation(of track: CompositionTrack, at t: Time, timescale: Int32) throws -> Presentation? {
        do {
            return try track.presentation(at: t)
        } catch {
            guard case .overflow = error else { throw error }
            return track.approximatePresentation(at: t, timescale: timescale)
        }
    }
}

extension FramePlan.Source {
    /// The picture this frame shows, or the nearer of the two it is made from (the first when
    /// halfway); nil for a gap.
    var nearest: Int? {
        switch self {
        case .gap: nil
        case .frame(let i): i
        case .blend(let i, let j, let weight), .interpolate(let i, let j, let weight): weight <= 0.5 ? i : j
        }
    }
}
