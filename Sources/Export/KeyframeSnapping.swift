import Composition

/// Passthrough copies compressed frames, so a cut can only resume at a keyframe. This moves
/// every cut in a timeline to keyframes: a removed source range `[e, s)` becomes `[K(e), K(s))`,
/// where `K(x)` is the first keyframe at or after `x`. The frames before the cut keep their whole
/// group of pictures (so B-frames never lose a reference), and the frames after it start at a
/// keyframe. Segments keep their rates; the timeline is laid out again.
enum KeyframeSnapping {
    struct Cut: Equatable {
        /// What the timeline asked to remove, in source time.
        let requested: TimeRange
        /// What passthrough removes; nil when no keyframe falls inside it and nothing is cut.
        let actual: TimeRange?
    }

    /// Whether the timeline plays its media without skipping any source in between (gaps aside),
    /// so that ``snap(_:keyframes:)`` has no cut to move, whatever the keyframes.
    static func removesNothing(_ segments: [CompositionTrackSegment]) -> Bool {
        let sources = segments.compactMap(\.source)
        return zip(sources, sources.dropFirst()).allSatisfy { $0.end == $1.start }
    }

    /// The segments with every cut moved to keyframes, and what each cut became.
    static func snap(_ segments: [CompositionTrackSegment], keyframes: [Time]) throws -> ([CompositionTrackSegment], [Cut]) {
        func keyframe(atOrAfter t: Time) -> Time? {
            var low = 0, high = keyframes.count
            while low < high {
                let mid = (low + high) / 2
                if keyframes[mid] < t { low = mid + 1 } else { high = mid }
            }
            return low < keyframes.count ? keyframes[low] : nil
        }
        // Pieces: (source range, rate), or a gap's duration.
        var pieces = segments.map(TimelinePiece.init)
        var cuts: [Cut] = []
        var i = 0
        while i < pieces.count - 1 {
            // The next media piece after i (skipping gaps).
            guard let a = pieces[i].source, let j = pieces[(i + 1)...].firstIndex(where: { $0.source != nil }),
                  let b = pieces[j].source else { i += 1; continue }
            if b.start < a.end {
                throw ExportError.unsupported("the timeline plays source \(b.start) again after \(a.end); passthrough cannot repeat frames (use --fps)")
            }
            guard b.start > a.end else { i += 1; continue }
            let requested = try TimeRange(start: a.end, end: b.start)
            let resume = keyframe(atOrAfter: b.start) ?? b.end
            let stop = keyframe(atOrAfter: a.end) ?? a.end
            if stop >= resume {
                // No keyframe inside the removed range: cutting would leave undecodable frames,
                // so the whole range stays.
                cuts.append(Cut(requested: requested, actual: nil))
                pieces[i].source = try TimeRange(start: a.start, end: b.start)
            } else {
                cuts.append(Cut(requested: requested, actual: try TimeRange(start: stop, end: resume)))
                pieces[i].source = try TimeRange(start: a.start, end: stop)
                if resume < b.end {
                    pieces[j].source = try TimeRange(start: resume, end: b.end)
                } else {
                    pieces[j].source = nil
                    pieces[j].gap = .zero
                }
            }
            i += 1
        }
        return (try TimelinePiece.laidOut(pieces), cuts)
    }
}
