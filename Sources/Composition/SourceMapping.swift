/// Where source material plays in a timeline: the inverse of ``CompositionTrack/presentation(at:)``
/// for whole ranges. Subtitle cues and chapters follow the timeline this way: a range in a
/// removed stretch vanishes, one crossing a cut is clipped at it, one in a scaled stretch
/// stretches with it. A hold (freeze frame) of a source time inside a range belongs to that
/// range: a cue on screen when the picture freezes stays on screen while it is held.
///
/// Exact where the arithmetic fits; where it overflows (stacked prime rates), the times are
/// rounded to microseconds.
public enum SourceMapping {
    /// The composition ranges, in order, where source `range` plays in `segments` (a track's
    /// segments, in order); pieces that meet are joined. Empty when none of it plays.
    public static func compositionRanges(of range: TimeRange, in segments: [CompositionTrackSegment]) -> [TimeRange] {
        var pieces: [TimeRange] = []
        for segment in segments {
            if let held = segment.heldTime, range.contains(held) {
                pieces.append(segment.target)
                continue
            }
            guard let source = segment.source, source.overlaps(range) else { continue }
            let from = max(source.start, range.start), to = min(source.end, range.end)
            guard let a = compositionTime(of: from, in: segment), let b = compositionTime(of: to, in: segment),
                  let piece = try? TimeRange(start: min(a, b), end: max(a, b)), !piece.isEmpty else { continue }
            pieces.append(piece)
        }
        pieces.sort { $0.start < $1.start }
        var joined: [TimeRange] = []
        for piece in pieces {
            if let last = joined.last, piece.start <= last.end {
                if piece.end > last.end, let merged = try? TimeRange(start: last.start, end: piece.end) { joined[joined.count - 1] = merged }
            } else {
                joined.append(piece)
            }
        }
        return joined
    }

    /// The composition time at which source time `s` plays, or, when `s` is not played (removed),
    /// where the first source after it plays: where the cut is (or where a hold of it starts).
    /// Nil when nothing at or after `s`
    /// plays.
    public static func compositionTime(atOrAfter s: Time, in segments: [CompositionTrackSegment]) -> Time? {
        var best: Time?
        for segment in segments {
            // A hold of `s` or of a later time starts showing it where the hold starts.
            if let held = segment.heldTime, held >= s, best.map({ segment.target.start < $0 }) ?? true {
                best = segment.target.start
            }
            guard let source = segment.source, s < source.end else { continue }
            // Backwards, the source after `s` first plays where the segment starts.
            guard let t = segment.isReversed && s <= source.start ? segment.target.start
                    : compositionTime(of: max(s, source.start), in: segment) else { continue }
            if best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    /// Where source time `s` (within or at the end of `segment`'s source) plays.
    private static func compositionTime(of s: Time, in segment: CompositionTrackSegment) -> Time? {
        if let exact = try? segment.compositionTime(forSourceTime: s) { return exact }
        guard let source = segment.source else { return nil }
        let played = segment.isReversed ? source.end.seconds - s.seconds : s.seconds - source.start.seconds
        let fraction = played / max(source.duration.seconds, 1e-12)
        let seconds = segment.target.start.seconds + fraction * segment.target.duration.seconds
        return Time(value: Int64((seconds * 1_000_000).rounded()), timescale: 1_000_000)
    }
}
