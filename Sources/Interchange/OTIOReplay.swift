import Foundation
public import Composition

extension OTIO {
    /// The items a composition track plays, in order, as OTIO would hold them.
    public static func items(of track: CompositionTrack) -> [OTIOTimeline.Item] {
        track.segments.map { segment in
            if let source = segment.source, let rate = segment.signedRate { .clip(source: source, rate: rate) }
            else if let held = segment.heldTime { .hold(frame: held, duration: segment.target.duration) }
            else { .gap(duration: segment.target.duration) }
        }
    }

    /// The slowpoke edits that turn the whole movie, `[0, movieDuration)` at 1x, into `track`:
    /// remove what the clips skip, scale each clip to its rate, insert the gaps. Throws, naming
    /// the clip, when clips are out of source order, overlap or repeat source (slowpoke plays a
    /// movie in order, each part at most once) or reach beyond the movie.
    ///
    /// Arithmetic errors come through as they are; ``replay(_:on:)`` tries other orders.
    static func forwardEdits(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws -> [Edit] {
        var edits: [Edit] = []
        var t = Time.zero  // where the untouched rest of the movie starts on the timeline
        var s = Time.zero  // the source time it starts with
        func range(_ start: Time, _ duration: Time) throws(CompositionError) -> TimeRange {
            try TimeRange(start: start, duration: duration)
        }
        for labeled in track.items {
            do {
                switch labeled.item {
                case .gap(let duration):
                    edits.append(.insertGap(range: try range(t, duration)))
                    t = try t + duration
                case .hold(let frame, let duration):
                    // slowpoke holds the frame where the timeline stands: what follows is
                    // untouched from source s, so skip to the held frame, then freeze it.
                    guard frame >= s, frame < movieDuration else {
                        throw OTIOError.unsupported("\(labeled.label) freezes media time \(frame.readable), but the timeline has already played up to \(s.readable) there (or the movie ends before it); slowpoke holds a frame where it stands on the timeline, so a freeze must hold a frame at or after the end of the clip before it")
                    }
                    if frame > s { edits.append(.remove(range: try range(t, frame - s))) }
                    edits.append(.freeze(range: try range(t, duration)))
                    t = try t + duration
                    s = frame
                case .clip(let source, let rate):
                    guard source.start >= .zero, source.end <= movieDuration else {
                        throw OTIOError.unsupported("\(labeled.label) plays source \(source), beyond the movie's 0-\(movieDuration.readable)")
                    }
                    guard source.start >= s else {
                        throw OTIOError.unsupported("\(labeled.label) plays source \(source), which starts before the end of the clip before it (\(s.readable)); a slowpoke timeline plays the movie in order, each part at most once")
                    }
                    if source.start > s {
                        edits.append(.remove(range: try range(t, source.start - s)))
                    }
                    let target = try source.duration.multiplied(by: rate.reciprocal)
                    if rate != .one {
                        edits.append(.scale(range: try range(t, source.duration), toDuration: target))
                    }
                    t = try t + target
                    s = source.end
                }
            } catch let error as OTIOError {
                throw error
            } catch CompositionError.overflow(let what) {
                throw CompositionError.overflow(what)
            } catch {
                throw OTIOError.unsupported("\(labeled.label): \(error)")
            }
        }
        if s < movieDuration {
            edits.append(.remove(range: try range(t, movieDuration - s)))
        }
        return edits
    }

    /// The same edits derived from the end of the movie backwards: the part before the
    /// current clip is still the untouched movie, so every edit is placed at source times.
    /// Some timelines whose forward edits pass through unrepresentable intermediate times
    /// (mixes of 1001/30000 s and 1/1000 s grids, say) replay exactly this way.
    static func editsBackward(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws(CompositionError) -> [Edit] {
        var edits: [Edit] = []
        var p = movieDuration  // [0, p) is still the untouched movie
        for labeled in track.items.reversed() {
            switch labeled.item {
            case .gap(let duration):
                edits.append(.insertGap(range: try TimeRange(start: p, duration: duration)))
            case .hold(let frame, let duration):
                // Freeze the untouched movie at the held frame, then remove what lies between
                // it and what follows (now after the hold).
                guard frame <= p else { throw .invalidRange("\(labeled.label) freezes media time \(frame) after the clip that follows it") }
                edits.append(.freeze(range: try TimeRange(start: frame, duration: duration)))
                if frame < p { edits.append(.remove(range: try TimeRange(start: frame + duration, duration: p - frame))) }
                p = frame
            case .clip(let source, let rate):
                if source.end < p { edits.append(.remove(range: try TimeRange(start: source.end, end: p))) }
                if rate != .one {
                    edits.append(.scale(range: source, toDuration: try source.duration.multiplied(by: rate.reciprocal)))
                }
                p = source.start
            }
        }
        if p > .zero { edits.append(.remove(range: try TimeRange(start: .zero, end: p))) }
        return edits
    }

    /// The same edits grouped by kind: the unused source removed (from the end, in source
    /// times), then each clip scaled (from the last, so earlier positions stay put), then the
    /// gaps inserted at their final times.
    static func editsByKind(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws(CompositionError) -> [Edit] {
        guard !track.items.contains(where: { if case .hold = $0.item { true } else { false } }) else {
            throw .overflow("a timeline with freeze frames replays only in timeline order or from its end")
        }
        let clips: [(source: TimeRange, rate: Rational)] = track.items.compactMap {
            if case .clip(let source, let rate) = $0.item { (source, rate) } else { nil }
        }
        var edits: [Edit] = []
        var p = movieDuration
        for clip in clips.reversed() {
            if clip.source.end < p { edits.append(.remove(range: try TimeRange(start: clip.source.end, end: p))) }
            p = clip.source.start
        }
        if p > .zero { edits.append(.remove(range: try TimeRange(start: .zero, end: p))) }
        var starts: [Time] = []
        var position = Time.zero
        for clip in clips {
            starts.append(position)
            position = try position + clip.source.duration
        }
        for (clip, start) in zip(clips, starts).reversed() where clip.rate != .one {
            edits.append(.scale(range: try TimeRange(start: start, duration: clip.source.duration),
                                toDuration: try clip.source.duration.multiplied(by: clip.rate.reciprocal)))
        }
        var t = Time.zero
        for labeled in track.items {
            switch labeled.item {
            case .gap(let duration):
                edits.append(.insertGap(range: try TimeRange(start: t, duration: duration)))
                t = try t + duration
            case .clip(let source, let rate):
                t = try t + source.duration.multiplied(by: rate.reciprocal)
            case .hold(_, let duration):
                t = try t + duration
            }
        }
        return edits
    }

    /// The edits that make `original` (the whole movie) play `timeline`, and the result, checked
    /// against every track. Tries the edits slowpoke wrote beside the timeline (``replayRecorded(_:on:)``),
    /// then edits in timeline order, then from the end, then grouped by kind; throws
    /// naming the item when the timeline cannot be represented.
    public static func replay(_ timeline: OTIOTimeline, on original: Composition) throws(OTIOError) -> (edits: [Edit], composition: Composition) {
        if let recorded = replayRecorded(timeline, on: original) { return recorded }
        let (track, reverses) = try forwards(primaryTrack(of: timeline))
        let movieDuration = original.duration
        var failure: CompositionError?
        for attempt in 0..<3 {
            var composition = original
            do {
                let list = switch attempt {
                case 0: try forwardEdits(toPlay: track, movieDuration: movieDuration)
                case 1: try editsBackward(toPlay: track, movieDuration: movieDuration)
                default: try editsByKind(toPlay: track, movieDuration: movieDuration)
                }
                let edits = list + reverses.map { Edit.reverse(range: $0) }
                for edit in edits { try edit.apply(to: &composition) }
                try check(timeline, against: composition)
                return (edits, composition)
            } catch let error as OTIOError {
                throw error
            } catch let error as CompositionError {
                guard case .overflow = error else { throw .unsupported("\(track.label) cannot be played by slowpoke: \(error.description)") }
                // The timeline order's failure names the time that overflows; the last order's
                // may only say that it does not take freezes.
                failure = failure ?? error
            } catch {
                throw .unsupported("\(track.label): \(error)")
            }
        }
        throw .unsupported("\(track.label) cannot be replayed as slowpoke edits with exact times: \(failure?.description ?? "overflow")")
    }

    /// The track an import follows: the first Video track with items, else the first Audio
    /// track with items.
    public static func primaryTrack(of timeline: OTIOTimeline) throws(OTIOError) -> OTIOTimeline.Track {
        let candidates = timeline.tracks.filter { !$0.items.isEmpty }
        guard let track = candidates.first(where: { $0.mediaType == .video }) ?? candidates.first else {
            throw .unsupported("the timeline has no clips or gaps")
        }
        return track
    }

    /// Checks that every track of `timeline` with items plays what `composition`'s track of the
    /// same kind plays (adjacent gaps, and clips that continue each other at the same rate,
    /// count as one). slowpoke edits all tracks together, so an audio track cut differently from
    /// the video cannot be represented.
    public static func check(_ timeline: OTIOTimeline, against composition: Composition) throws(OTIOError) {
        for track in timeline.tracks where !track.items.isEmpty {
            guard let ours = composition.tracks(withMediaType: track.mediaType).first else {
                throw .unsupported("\(track.label) has no counterpart: the movie has no \(track.mediaType.rawValue)")
            }
            let expected = items(of: ours)
            let (given, labels) = merged(track.items)
            for index in 0..<max(given.count, expected.count) {
                let a = index < given.count ? given[index] : nil
                let b = index < expected.count ? expected[index] : nil
                guard a != b else { continue }
                let label = index < labels.count ? labels[index] : "the end of \(track.label)"
                throw .unsupported("\(label) does not line up with the timeline the first track describes (\(describe(b)) there, \(describe(a)) here); slowpoke edits every track together, so all tracks must be cut and retimed alike")
            }
        }
    }

    private static func describe(_ item: OTIOTimeline.Item?) -> String {
        switch item {
        case nil: "nothing"
        case .gap(let duration): "a \(duration.readable) gap"
        case .clip(let source, let rate): "source \(source) at \(rate.readable)x"
        case .hold(let frame, let duration): "the frame at \(frame.readable) held for \(duration.readable)"
        }
    }

    /// Merges neighbours the way slowpoke's timelines are always merged.
    static func merged(_ items: [OTIOTimeline.LabeledItem]) -> ([OTIOTimeline.Item], [String]) {
        var result: [OTIOTimeline.Item] = []
        var labels: [String] = []
        for labeled in items {
            switch (result.last, labeled.item) {
            case let (.gap(a)?, .gap(b)):
                if let sum = try? a + b { result[result.count - 1] = .gap(duration: sum); continue }
            case let (.hold(fa, a)?, .hold(fb, b)) where fa == fb:
                if let sum = try? a + b { result[result.count - 1] = .hold(frame: fa, duration: sum); continue }
            case let (.clip(sa, ra)?, .clip(sb, rb)) where ra == rb && (ra < .zero ? sb.end == sa.start : sa.end == sb.start):
                if let joined = try? TimeRange(start: min(sa.start, sb.start), end: max(sa.end, sb.end)) {
                    result[result.count - 1] = .clip(source: joined, rate: ra)
                    continue
                }
            default: break
            }
            result.append(labeled.item)
            labels.append(labeled.label)
        }
        return (result, labels)
    }
}
