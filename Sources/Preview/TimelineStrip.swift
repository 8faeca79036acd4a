public import Composition

/// The timeline strip along the bottom of the preview window, laid out as rectangles: a pure
/// function of the timeline and the strip's size, so its geometry is tested without SDL.
///
/// ```
///   x = t / duration × width
///   0                                                                    width
///   ┌──────────────┬─────────┬───────┬──────────────┬─────────────────────┐
///   │██████████████│▁▁▁▁▁▁▁▁▁│◀ ◀ ◀ ◀│░░░░░░░░░░░░░░│█████████████████████│ height
///   └──────────────┴─────────┴───────┴──────────────┴─────────────────────┘
///     1x             1/4x      reversed  hold (freeze)   1x        (a gap stays empty)
/// ```
///
/// A media segment is a bar whose height is its rate on the ``SpeedScale`` of `info`'s speed
/// graph (the slowest rate lowest, never below a quarter of the strip), coloured by ``Kind``;
/// a reversed one carries left-pointing wedges; a hold fills the strip in its own colour; a gap
/// is left as background. Segments narrower than a pixel share the pixel of the one before.
public struct TimelineStrip: Sendable, Equatable {
    public struct Rect: Sendable, Equatable, CustomStringConvertible {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
        public var description: String { "(\(x), \(y), \(width)x\(height))" }
    }

    /// How a piece is drawn.
    public enum Kind: Sendable, Equatable, CaseIterable {
        case slow, normal, fast, reversed, hold, gap
    }

    public struct Piece: Sendable, Equatable {
        public let rect: Rect
        public let kind: Kind
        /// The segment's index in the track.
        public let segment: Int
    }

    public let width: Int
    public let height: Int
    public let duration: Time
    public let pieces: [Piece]
    /// The direction marks (wedges) inside reversed pieces, column by column.
    public let arrows: [Rect]

    public init(segments: [CompositionTrackSegment], duration: Time, width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.duration = duration
        let scale = SpeedScale(segments: segments)
        var pieces: [Piece] = []
        var arrows: [Rect] = []
        let seconds = duration.seconds
        for (index, segment) in segments.enumerated() {
            let start = Self.x(segment.target.start.seconds, of: seconds, width: self.width)
            let end = Self.x(segment.target.end.seconds, of: seconds, width: self.width)
            let left = max(start, pieces.last.map { $0.rect.x + $0.rect.width } ?? 0)
            guard end > left else { continue }
            let kind = Self.kind(of: segment)
            var bar = self.height
            if let rate = segment.rate, let scale {
                // A quarter of the strip for the slowest rate, all of it for the fastest.
                let minimum = (self.height + 3) / 4
                bar = minimum + Int((scale.level(of: rate) * Double(self.height - minimum)).rounded())
            }
            let rect = kind == .gap ? Rect(x: left, y: 0, width: end - left, height: self.height)
                : Rect(x: left, y: self.height - bar, width: end - left, height: bar)
            pieces.append(Piece(rect: rect, kind: kind, segment: index))
            if kind == .reversed { arrows += Self.wedges(in: rect) }
        }
        self.pieces = pieces
        self.arrows = arrows
    }

    static func kind(of segment: CompositionTrackSegment) -> Kind {
        if segment.heldTime != nil { return .hold }
        guard let rate = segment.rate else { return .gap }
        if segment.isReversed { return .reversed }
        return rate < .one ? .slow : rate > .one ? .fast : .normal
    }

    static func x(_ t: Double, of duration: Double, width: Int) -> Int {
        guard duration > 0, t.isFinite else { return 0 }
        return min(width, max(0, Int((t / duration * Double(width)).rounded())))
    }

    /// The column of timeline time `t`, from 0 to `width`.
    public func x(at t: Time) -> Int { Self.x(t.seconds, of: duration.seconds, width: width) }

    /// The timeline time under column `x` (a click there seeks to it), on the player's clock
    /// grid, within the timeline.
    public func time(atX x: Int) -> Time {
        let fraction = min(1, max(0, Double(x) / Double(width)))
        return min(duration, PlaybackClock.time(seconds: fraction * duration.seconds))
    }

    /// The playhead at `t`: a bar 2 px wide (1 px at the ends) over the strip's whole height.
    public func playhead(at t: Time) -> Rect {
        let x = self.x(at: t)
        return Rect(x: max(0, min(x - 1, width - 2)), y: 0, width: min(2, width), height: height)
    }

    /// The marked range (the span between the marks, when both are set) and a line at each mark.
    public func marks(in markIn: Time?, out markOut: Time?) -> (range: Rect?, lines: [Rect]) {
        let columns = [markIn, markOut].compactMap { $0.map { x(at: $0) } }
        let lines = columns.map { Rect(x: max(0, min($0, width - 1)), y: 0, width: 1, height: height) }
        guard columns.count == 2, let lo = columns.min(), let hi = columns.max(), hi > lo else { return (nil, lines) }
        return (Rect(x: lo, y: 0, width: hi - lo, height: height), lines)
    }

    /// Wedges pointing left, one every 12 px: each a column of 1 px rectangles growing from the
    /// point, centred on the bar.
    static func wedges(in rect: Rect) -> [Rect] {
        var out: [Rect] = []
        let size = min(8, max(2, rect.height / 2))
        let middle = rect.y + rect.height / 2
        var x = rect.x + 2
        while x + size / 2 <= rect.x + rect.width - 1 {
            for step in 0..<(size / 2) {
                let half = step + 1
                out.append(Rect(x: x + step, y: middle - half, width: 1, height: 2 * half))
            }
            x += 12
        }
        return out
    }
}
