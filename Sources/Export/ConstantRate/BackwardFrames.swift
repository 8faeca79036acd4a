import Composition

/// Which pictures make an output frame inside a reversed segment of a constant-rate export.
///
/// Playing backwards, the source time reached at timeline time t is `s = sourceTime(at: t)`,
/// from `source.end` down to `source.start`, and the picture on screen is the one presented
/// just *before* s: picture i shows while s falls in `(t_i, t_i+1]`, so a reversed range shows
/// the pictures of `[source.start, source.end)` last to first. Blends and interpolated frames
/// mix the picture on screen with the one that plays next, the picture before it:
///
/// ```
///   source    | i-1       | i         | i+1
///             t_i-1       t_i         t_i+1
///   backwards          <──── s ─────┘         picture i, then i-1 by (t_i+1 − s)/(t_i+1 − t_i)
/// ```
extension FramePlan {
    static func backwards(track: CompositionTrack, _ p: Presentation, s: Time, range: TimeRange, rate: Rational,
                          pictures: PictureTimes, selection: FrameSelection) throws -> Source {
        let times = pictures.times
        var i = pictures.picture(at: s)
        if i > 0 && times[i] >= s { i -= 1 }
        let j = i - 1
        // The picture before i plays next if it is inside this segment's source, or a following
        // reversed segment continues the source downwards from here.
        let next = p.segmentIndex + 1 < track.segments.count ? track.segments[p.segmentIndex + 1] : nil
        let continues = next.map { $0.isReversed && $0.source?.end == range.start } ?? false
        guard j >= 0, i + 1 < times.count, s < times[i + 1], times[i] > range.start || continues else { return .frame(i) }
        let weight = try (times[i + 1] - s).seconds / (times[i + 1] - times[i]).seconds
        switch selection {
        case .blend: return .blend(i, j, weight: weight)
        case .interpolate where rate < .one: return .interpolate(i, j, weight: weight)
        default: return .frame(i)
        }
    }
}

extension FramePlan.Source {
    /// The pictures this output frame is made of.
    var pictures: [Int] {
        switch self {
        case .gap: []
        case .frame(let i): [i]
        case .blend(let i, let j, _), .interpolate(let i, let j, _): [i, j]
        }
    }
}
