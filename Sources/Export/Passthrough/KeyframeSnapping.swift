import Composition
import Media

/// Passthrough copies compressed frames, so a run of copied frames can only resume at a
/// keyframe and can only end where no kept frame refers to a dropped one (``CutPoints``). This
/// moves every cut of the whole timeline, after all its edits, to such points:
///
/// - The source the timeline skips is found first, as maximal ranges: before the first piece,
///   between consecutive pieces (however many edits made them), and after the last.
/// - A skipped range `[x, y)` becomes `[stop(x), resume(y))`: it ends a little earlier when
///   B-frames shown before `x` depend on frames after it, and resumes at the next keyframe.
///   (or at the end when there is none). When that lies further past `y` than the range is long, cutting would lose more
///   of what the timeline keeps than it removes, so the range is kept instead (played at the
///   rate of the piece before it).
/// - Snapped ranges that overlap merge, and every piece loses what they cover. Pieces keep
///   their rates and gaps their lengths; the timeline is laid out again.
enum KeyframeSnapping {
    struct Cut: Equatable {
        /// What the timeline skips, in source time.
        let requested: TimeRange
        /// What passthrough removes for it (merged with its neighbours' when they overlap); nil
        /// when it is kept.
        let actual: TimeRange?
    }

    /// Whether the timeline plays its media without skipping any source in between (gaps aside),
    /// so that no cut between pieces can move.
    static func removesNothing(_ segments: [CompositionTrackSegment]) -> Bool {
        let sources = segments.compactMap(\.source)
        return zip(sources, sources.dropFirst()).allSatisfy { $0.end == $1.start }
    }

    /// The segments with every cut moved to where passthrough can make it, and what each
    /// skipped range became.
    ///
    /// Frames an edit list hides lie before source time 0 in `points`. Unless `carriesHidden`
    /// (the output keeps them as undisplayed references), a timeline that starts at 0 starts
    /// with a cut too, which always resumes at a keyframe: hidden frames are never shown.
    static func snap(_ segments: [CompositionTrackSegment], points: CutPoints,
                     carriesHidden: Bool = false) throws -> ([CompositionTrackSegment], [Cut]) {
        var pieces = segments.map(TimelinePiece.init)
        let media = pieces.indices.filter { pieces[$0].source != nil }
        guard let firstMedia = media.first, let lastMedia = media.last else { return (segments, []) }
        for (i, j) in zip(media, media.dropFirst()) where pieces[j].source!.start < pieces[i].source!.end {
            throw ExportError.unavailable(Notice("the timeline plays source \(pieces[j].source!.start) again after \(pieces[i].source!.end); passthrough cannot repeat frames",
                                                 remedies: [Remedy(.constantRate)]))
        }
        // 1. What the timeline skips: (range, index of the piece before it or nil).
        var skipped: [(range: TimeRange, before: Int?)] = []
        let firstStart = pieces[firstMedia].source!.start
        let streamStart = min(.zero, points.times.first ?? .zero)
        let hiddenStart = carriesHidden && firstStart == .zero ? Time.zero : streamStart
        if firstStart > hiddenStart { skipped.append((try TimeRange(start: hiddenStart, end: firstStart), nil)) }
        for (i, j) in zip(media, media.dropFirst()) where pieces[j].source!.start > pieces[i].source!.end {
            skipped.append((try TimeRange(start: pieces[i].source!.end, end: pieces[j].source!.start), i))
        }
        let lastEnd = pieces[lastMedia].source!.end
        if lastEnd < points.end { skipped.append((try TimeRange(start: lastEnd, end: points.end), lastMedia)) }

        // 2. Each becomes a cut passthrough can make, or is kept.
        var removals: [TimeRange] = []
        var decided: [(TimeRange, TimeRange?)] = []
        for (range, before) in skipped {
            let stop = before == nil ? range.start : points.stop(atOrBefore: range.start)
            // Without a keyframe to resume from, the cut runs to the end.
            let resume = range.end >= points.end ? points.end : (points.resume(atOrAfter: range.end) ?? points.end)
            if try resume - range.end <= range.duration || range.start < .zero {
                let actual = try TimeRange(start: stop, end: resume)
                removals.append(actual)
                decided.append((range, actual))
            } else {
                // Keep it: the piece before plays on through it (the first piece starts earlier).
                let i = before ?? firstMedia
                let source = pieces[i].source!
                pieces[i].source = try TimeRange(start: min(source.start, range.start), end: max(source.end, range.end))
                decided.append((range, nil))
            }
        }

        // 3. Merge overlapping removals; each piece loses what they cover.
        var merged: [TimeRange] = []
        for r in removals.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, r.start <= last.end {
                merged[merged.count - 1] = try TimeRange(start: last.start, end: max(last.end, r.end))
            } else {
                merged.append(r)
            }
        }
        for i in media {
            guard var source = pieces[i].source else { continue }
            for r in merged where r.start < source.end && r.end > source.start {
                if r.start <= source.start && r.end >= source.end {
                    pieces[i].gap = .zero
                    pieces[i].source = nil
                    break
                }
                if r.start <= source.start { source = try TimeRange(start: r.end, end: source.end) }
                else if r.end >= source.end { source = try TimeRange(start: source.start, end: r.start) }
                else { throw ExportError.unsupported("internal: a cut at \(r) falls inside the kept source \(source)") }
            }
            if pieces[i].source != nil { pieces[i].source = source }
        }
        let cuts = try decided.map { requested, actual in
            // A kept range can still fall inside a neighbour's removal.
            let covering = actual ?? requested
            return Cut(requested: requested, actual: merged.first { $0.start <= covering.start && $0.end >= covering.end } ?? actual)
        }
        return (try TimelinePiece.laidOut(pieces), cuts)
    }
}
