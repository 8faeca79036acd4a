/// The frames of an audio codec, in which copied packets come: 1024 samples for AAC, 960 at
/// 48 kHz for Opus. A packet copied after an edit keeps its place only when the edit changes
/// the offset between timeline and source by a whole number of these.
public struct FrameGrid: Sendable, Hashable {
    public let samplesPerFrame: Int64
    public let sampleRate: Int32
    /// How messages name the codec: `AAC`, `Opus`.
    public let codecName: String

    public init(samplesPerFrame: Int64, sampleRate: Int32, codecName: String) {
        self.samplesPerFrame = samplesPerFrame
        self.sampleRate = sampleRate
        self.codecName = codecName
    }

    /// One frame's length: 1024/48000 s (21.33 ms) for AAC at 48 kHz.
    public var frameDuration: Time {
        get throws(CompositionError) { try Time(seconds: Rational(samplesPerFrame, Int64(sampleRate))) }
    }
}

/// Fits a timeline to an audio codec's frame grid, for an export that copies the audio's own
/// packets where the timeline leaves them unchanged (smart audio).
///
/// Every edit that changes the offset between timeline and source (a scale, a ramp, a removal,
/// a gap, a freeze) is changed by less than half a frame so that the offset it leaves is a
/// whole number of frames: after it, the source's packets land on the same grid as before it,
/// and all of them can be copied.
///
/// ```
///   exact    [0 ==== 3.2)[3.2 ~~~~ 0.25x ~~~~ 10.4)[10.4 ==== 61.8)   offset after: 5.4 s
///                                                                     = 253.125 AAC frames
///   fitted   [0 ==== 3.2)[3.2 ~~~~ 0.2501x ~~ 10.397)[10.397 == 61.797) offset 253 frames
/// ```
///
/// - A run of edited segments between two segments that play the source at 1x (a scaled range,
///   a ramp's steps, a gap, a freeze, or several of them) absorbs the misfit in its longest
///   segment, whose length moves to the nearest fit (a scaled segment's rate moves with it).
/// - A 1x segment straight after a cut (or at the start of a trimmed timeline) starts its source
///   at the nearest fit instead: the removal's end moves.
///
/// Only segments that play source at 1x are fitted against; the offset they must have is a
/// whole number of frames from the untouched movie's (timeline time = source time). Exact
/// rational arithmetic throughout: a fitted offset is exactly a multiple of the frame.
public enum FrameGridFit {
    /// What fitting did to a timeline's length.
    public struct Summary: Sendable, Hashable {
        public let grid: FrameGrid
        /// The timeline's length as edited, and as fitted.
        public let before: Time
        public let after: Time
        /// How many segments moved.
        public let moved: Int

        public init(grid: FrameGrid, before: Time, after: Time, moved: Int) {
            self.grid = grid
            self.before = before
            self.after = after
            self.moved = moved
        }

        /// `fitted to whole AAC frames: 15.389 s for 15.4 s`; nil when nothing moved.
        public var line: String? {
            guard moved > 0 else { return nil }
            return "fitted to whole \(grid.codecName) frames: \(after.shown) s for \(before.shown) s"
        }
    }

    /// Which side of a cut between two 1x segments moves.
    public enum CutSide: Sendable {
        /// The removal's end: the later segment starts its source at the nearest fit.
        case end
        /// The removal's start: the earlier segment ends its source at the fit before its end,
        /// less than a frame earlier (for passthrough, whose cuts resume at keyframes that
        /// cannot move).
        case start
    }

    /// `segments` (tiling a track from 0) fitted to `grid`, and how many segments moved. The
    /// offsets are fitted to that of the first segment when it plays the source at 1x (a trimmed
    /// start stays where it is), else to the untouched movie's (0).
    ///
    /// With `frames` (the video's frame times), a cut never moves a frame across it: each side
    /// of the cut moves only inside its ``FrameTimes/window(around:)``, both sides moving when
    /// one alone cannot take the misfit, and a cut that cannot be fitted so stays where it is
    /// (its audio is then rendered, as without fitting). `cuts` says which side moves first.
    ///
    /// With `sourceGrid` (where the source's audio packets lie, which changes where its clock
    /// jumps), each offset is aimed at the grid of the packets the segment plays.
    public static func fitted(_ segments: [CompositionTrackSegment], to grid: FrameGrid, cuts: CutSide = .end,
                              frames: FrameTimes? = nil, sourceGrid: SourceGrid? = nil) throws(CompositionError)
        -> (segments: [CompositionTrackSegment], moved: Int) {
        let frame = try grid.frameDuration
        var result: [CompositionTrackSegment] = []
        result.reserveCapacity(segments.count)
        var start = Time.zero
        var moved = 0
        /// Edited segments since the last 1x one, with their (possibly fitted) lengths.
        var run: [(segment: CompositionTrackSegment, length: Time)] = []
        var previousSourceEnd: Time?
        var reference = Time.zero
        if let first = segments.first, first.rate == .one, !first.isReversed, let source = first.source {
            reference = try first.target.start - source.start + (sourceGrid?.phase(at: source.start) ?? .zero)
        } else if let sourceGrid {
            reference = sourceGrid.phase(at: .zero)
        }
        func flush() throws(CompositionError) {
            for (segment, length) in run {
                let target = try TimeRange(start: start, duration: length)
                result.append(try segment.moved(to: target))
                start = target.end
            }
            run.removeAll()
        }
        for segment in segments {
            // A reversed segment is edited audio, whatever its rate.
            guard segment.rate == .one, !segment.isReversed, var source = segment.source else {
                run.append((segment, segment.target.duration))
                continue
            }
            var runEnd = start
            for piece in run { runEnd = try runEnd + piece.length }
            let misfit = try remainder(runEnd - source.start - reference + (sourceGrid?.phase(at: source.start) ?? .zero), frame)
            if misfit != .zero {
                if let longest = run.indices.max(by: { run[$0].length < run[$1].length }) {
                    run[longest].length = try Self.length(of: run[longest].segment, less: misfit, frame: frame)
                    moved += 1
                } else if let frames {
                    if let fitted = try Self.fittedCut(after: result.last, source: source, misfit: misfit, frames: frames, first: cuts,
                                                       sample: Time(seconds: Rational(1, Int64(grid.sampleRate)))) {
                        if let previous = fitted.previous {
                            result[result.count - 1] = previous
                            start = previous.target.end
                        }
                        source = fitted.source
                        moved += 1
                    }
                } else if cuts == .start, let last = result.last,
                          let fitted = try Self.shortened(last, by: misfit, frame: frame) {
                    result[result.count - 1] = fitted
                    start = fitted.target.end
                    moved += 1
                } else if let fitted = try Self.startMoved(source, by: misfit, frame: frame, after: previousSourceEnd) {
                    // (With `.start`, when the segment before is too short to end earlier.)
                    source = fitted
                    moved += 1
                }
            }
            try flush()
            let target = try TimeRange(start: start, duration: source.duration)
            result.append(try CompositionTrackSegment(source: source, target: target))
            start = target.end
            previousSourceEnd = source.end
            if let sourceGrid {
                // The next copied packets meet these: aim at the grid they end on.
                reference = try target.start - source.start + sourceGrid.phase(at: source.end)
            }
        }
        try flush()
        return (result, moved)
    }

    /// `segment`'s length less `misfit`, or a frame more or less when that leaves nothing or
    /// would play a scaled segment at exactly 1x (it would then be taken for untouched audio);
    /// as it is if none of those will do.
    private static func length(of segment: CompositionTrackSegment, less misfit: Time, frame: Time) throws(CompositionError) -> Time {
        let nearest = try segment.target.duration - misfit
        let sign: Int64 = misfit > .zero ? 1 : -1
        for k in [0, sign, -sign, 2 * sign] {
            let length = try nearest + frame.multiplied(by: Rational(k))
            if length > .zero && length != segment.source?.duration { return length }
        }
        return segment.target.duration
    }

    /// The cut between `previous` (a 1x segment, or nil at the timeline's start) and the 1x
    /// segment playing `source` after it, fitted without moving a frame across either side:
    /// `source` starts `a` later and `previous` ends `b` later, with `a - b = misfit` (the offset
    /// after the cut is then whole frames), each inside its frame window. Of the choices, the
    /// one nearest to moving only the side `first` names; nil when none keeps both segments,
    /// their frames and their order.
    ///
    /// ```
    ///   previous  [==== e)          [s ==== next       source times
    ///   frames    |     |  ...      |     |
    ///   e may move in (frame before e, frame at or after e], s likewise
    /// ```
    static func fittedCut(after previous: CompositionTrackSegment?, source: TimeRange, misfit: Time, frames: FrameTimes,
                          first: CutSide, sample: Time) throws(CompositionError) -> (previous: CompositionTrackSegment?, source: TimeRange)? {
        let s = source.start, sWindow = frames.window(around: s)
        // `a` lies in (low, high]; nil is unbounded.
        var low: Time? = nil, high: Time? = nil
        if let lower = sWindow.lower { low = try lower - s }
        if let upper = sWindow.upper { high = try upper - s }
        func inside(_ a: Time) -> Bool { (low.map { a > $0 } ?? true) && (high.map { a <= $0 } ?? true) }
        func started(_ a: Time) throws(CompositionError) -> TimeRange? {
            let newStart = try s + a
            return newStart >= .zero && newStart < source.end ? try TimeRange(start: newStart, end: source.end) : nil
        }
        guard let previous, let before = previous.source, previous.rate == .one, !previous.isReversed else {
            // Nothing before to move: the start alone takes the misfit.
            guard inside(misfit), let fitted = try started(misfit) else { return nil }
            return (nil, fitted)
        }
        let e = before.end, eWindow = frames.window(around: e)
        if let lower = eWindow.lower { low = max(low ?? lower, try lower - e + misfit) }
        if let upper = eWindow.upper { high = min(high ?? upper, try upper - e + misfit) }
        let preferred = first == .end ? misfit : .zero
        let a: Time
        if inside(preferred) {
            a = preferred
        } else if let high, preferred > high, inside(high) {
            a = high
        } else if let low, let high, low < high {
            // The nearest to the side `first` names: just after `low`, by one audio sample
            // (or halfway, in a window narrower than that).
            let next = try low + sample
            a = next <= high ? next : try (low + high).multiplied(by: Rational(1, 2))
        } else {
            return nil
        }
        let newEnd = try e + a - misfit
        guard let fitted = try started(a), newEnd > before.start, newEnd <= fitted.start else { return nil }
        let ended = try TimeRange(start: before.start, end: newEnd)
        return (try CompositionTrackSegment(source: ended, target: TimeRange(start: previous.target.start, duration: ended.duration)), fitted)
    }

    /// `source` starting `misfit` later (a frame later still if that would play source before
    /// `after`, where the segment before it ends, or before the movie); nil if nothing is left.
    private static func startMoved(_ source: TimeRange, by misfit: Time, frame: Time, after: Time?) throws(CompositionError) -> TimeRange? {
        var newStart = try source.start + misfit
        if let after, newStart < after { newStart = try newStart + frame }
        if newStart < .zero { newStart = try newStart + frame }
        return newStart < source.end ? try TimeRange(start: newStart, end: source.end) : nil
    }

    /// The 1x `segment` ending at the fit at or before its end, less than a frame earlier; nil
    /// if nothing is left. Earlier rather than nearest: a passthrough run that may end at a
    /// frame's start (no frame shown before it is decoded after one shown after it) may end
    /// anywhere after the previous frame's start too, and the cut's source stays removed.
    private static func shortened(_ segment: CompositionTrackSegment, by misfit: Time, frame: Time) throws(CompositionError)
        -> CompositionTrackSegment? {
        guard let source = segment.source else { return nil }
        var newEnd = try source.end - misfit
        if misfit < .zero { newEnd = try newEnd - frame }
        guard newEnd > source.start else { return nil }
        let fitted = try TimeRange(start: source.start, end: newEnd)
        return try CompositionTrackSegment(source: fitted, target: TimeRange(start: segment.target.start, duration: fitted.duration))
    }

    /// Every track of `composition` fitted to `grid` (see ``fitted(_:to:)``), with the summary.
    public static func fitted(_ composition: Composition, to grid: FrameGrid) throws(CompositionError) -> (Composition, Summary) {
        var tracks: [CompositionTrack] = []
        var moved = 0
        for track in composition.tracks {
            let fit = try fitted(track.segments, to: grid)
            moved = max(moved, fit.moved)
            tracks.append(try CompositionTrack(trackID: track.trackID, mediaType: track.mediaType, segments: fit.segments))
        }
        let result = Composition(tracks: tracks)
        return (result, Summary(grid: grid, before: composition.duration, after: result.duration, moved: moved))
    }

    /// `x` less the nearest whole multiple of `frame`: in `(-frame/2, frame/2]`.
    static func remainder(_ x: Time, _ frame: Time) throws(CompositionError) -> Time {
        let q = try x.ratio(to: frame)
        // round(q) = floor((2n + d) / 2d), half up.
        let n = Int128(q.numerator), d = Int128(q.denominator)
        let twice = 2 * n + d, over = 2 * d
        var k = twice / over
        if twice % over != 0 && twice < 0 { k -= 1 }
        guard let whole = Int64(exactly: k) else { throw .overflow("\(x) is too many frames of \(frame)") }
        return try x - frame.multiplied(by: Rational(whole))
    }
}

extension CompositionTrackSegment {
    /// The same content over `target`: a media segment plays its source at the rate that
    /// takes; a gap stays a gap, a hold holds the same frame.
    func moved(to target: TimeRange) throws(CompositionError) -> CompositionTrackSegment {
        if let source { return try CompositionTrackSegment(source: source, target: target, reversed: isReversed) }
        if let heldTime { return try CompositionTrackSegment(holding: heldTime, target: target) }
        return try CompositionTrackSegment(emptyTarget: target)
    }
}
