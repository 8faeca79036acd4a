import Foundation
import Composition
import Media

/// Frame-exact passthrough cuts ("smart rendering"): the timeline's cuts stay where they are,
/// every packet that can be decoded after them is copied, and only the frames that cannot are
/// decoded and encoded again, as closed GOPs that begin with an IDR picture (``GOPRenderer``).
///
/// Frames are taken by presentation rank (``CutPoints``). For each run of frames the timeline
/// shows, `[p, q)`:
/// - copying may start at the first rank `r` in it from which a run may resume (an IDR that
///   no earlier-decoded frame follows on screen); frames `[p, r)` are re-encoded;
/// - copying stops at the last rank `s ≤ q` (at or after `r`) whose earlier-shown frames are a
///   decode prefix, so no copied frame refers to one the timeline drops (B-frames shown before a
///   cut that refer to a P-frame after it); frames `[s, q)` are re-encoded.
/// Copied frames `[r, s)` are then a contiguous run of the decode order that needs nothing else.
///
/// Runs the timeline plays backwards (``PlayedRun``) are copied last frame first when every
/// frame is an intra picture that decodes alone (ProRes, MJPEG, all-IDR H.264), else re-encoded
/// whole, last frame first, as one closed GOP; the forward runs around them end and resume as
/// at any cut. Items follow the timeline's order.
struct SmartCut {
    /// What the output video is made of, in its decode order.
    enum Item: Equatable {
        /// The source packet at this index of the decode order.
        case copy(Int)
        /// Frame `frame` (0-based) of re-encoded span `span`.
        case encoded(span: Int, frame: Int)
    }

    /// Frames to re-encode, in the order the output shows them: runs of presentation ranks
    /// (encoded in presentation order, or from the last to the first for a run the timeline
    /// plays backwards) and still pictures (a freeze's held frame, a gap's black), one closed
    /// GOP for the whole span.
    struct Span: Equatable {
        enum Part: Equatable {
            case frames(Range<Int>, reversed: Bool)
            case still(Still)
        }
        var parts: [Part]
        init(ranks: Range<Int>, reversed: Bool = false) { parts = [.frames(ranks, reversed: reversed)] }
        init(_ still: Still) { parts = [.still(still)] }
        var count: Int { parts.reduce(0) { $0 + $1.count } }
        /// The span's `frame`-th encoded picture: a source frame's presentation rank, or a still.
        func picture(_ frame: Int) -> Picture {
            var k = frame
            for part in parts {
                guard k >= part.count else {
                    switch part {
                    case .frames(let ranks, let reversed): return .rank(reversed ? ranks.upperBound - 1 - k : ranks.lowerBound + k)
                    case .still(let still): return .still(still)
                    }
                }
                k -= part.count
            }
            preconditionFailure("frame \(frame) of a span of \(count)")
        }
        /// The runs it encodes forwards (presentation ranks).
        var forwardRanks: [Range<Int>] {
            parts.compactMap { if case .frames(let ranks, false) = $0 { ranks } else { nil } }
        }
    }

    /// One picture shown over `shown` (output time) that no source frame's timing gives: the
    /// source frame of presentation rank `held` (a freeze), or black (`held` nil: a gap).
    struct Still: Equatable {
        let held: Int?
        let shown: TimeRange
    }

    enum Picture: Equatable {
        case rank(Int)
        case still(Still)
    }

    /// The spans to re-encode, in the order the output shows them.
    let spans: [Span]
    let items: [Item]
    /// The timeline's cuts that needed frames re-encoded.
    let cuts: Int
    /// The reversed runs that are re-encoded (a long-GOP stream played backwards).
    let reversedRuns: Int
    /// Whether holds and gaps are re-encoded stills (``Still``).
    let stills: Bool

    /// Plans `scan`'s frames for `segments` (the timeline, cuts unmoved).
    /// With `stills`, holds and gaps are re-encoded pictures (the held frame, black), part of
    /// the span beside them when there is one; without, the timing of the copied frames shows
    /// them (``PacketMap``).
    init(scan: VideoScan, segments: [CompositionTrackSegment], stills: Bool = false) {
        // Forward runs resume at IDR pictures, at the open-GOP recovery points that
        // OpenGOPRewriter rewrites as IDR pictures and at HEVC CRA pictures (renamed BLA);
        // backwards, only IDR pictures are copied.
        let points = scan.smartCutPoints
        let pts = scan.packets.map(\.pts)
        // Decode index of each presentation rank (as CutPoints sorts them).
        let order = pts.indices.sorted { pts[$0] < pts[$1] || (pts[$0] == pts[$1] && $0 < $1) }
        var spans: [Span] = []
        var items: [Item] = []
        var cuts = 0, reversedRuns = 0
        var tailBefore = false
        func encode(_ span: Span) {
            // A still joins the span it follows or that follows it: one GOP, one encoder.
            if case .encoded(let last, _)? = items.last, last == spans.count - 1,
               span.parts.first?.isStill == true || spans[last].parts.last?.isStill == true {
                items += (0..<span.count).map { .encoded(span: last, frame: spans[last].count + $0) }
                spans[last].parts += span.parts
                return
            }
            items += (0..<span.count).map { .encoded(span: spans.count, frame: $0) }
            spans.append(span)
        }
        for piece in PlayedRun.pieces(times: points.times, segments: segments, stills: stills) {
            guard case .run(let run) = piece else {
                if case .still(let held, let shown) = piece {
                    encode(Span(Still(held: held.map { PlayedRun.rank(showing: $0, in: points.times) }, shown: shown)))
                }
                tailBefore = false
                continue
            }
            let (p, q) = (run.ranks.lowerBound, run.ranks.upperBound)
            if run.reversed {
                // Backwards, frames are copied only when each one decodes alone (every frame
                // an intra picture nothing else refers to); otherwise the whole run is decoded
                // GOP by GOP from its end and encoded again, last frame first.
                if run.ranks.allSatisfy({ scan.cutPoints.resumes[$0] && points.endsRun[$0 + 1] }) {
                    items += run.ranks.reversed().map { .copy(order[$0]) }
                } else {
                    encode(Span(ranks: run.ranks, reversed: true))
                    reversedRuns += 1
                }
                tailBefore = false
                continue
            }
            var r = p
            while r < q && !points.resumes[r] { r += 1 }
            var s = q
            while s > r && !points.endsRun[s] { s -= 1 }
            if s <= r { r = q; s = q }
            if r > p { encode(Span(ranks: p..<r)) }
            if s > r { items += order[r..<s].sorted().map { .copy($0) } }
            if q > s { encode(Span(ranks: s..<q)) }
            // A cut re-encodes on one side or both (B-frames before it, a GOP resumed after it).
            if r > p && !tailBefore { cuts += 1 }
            if q > s { cuts += 1 }
            tailBefore = q > s
        }
        self.spans = spans
        self.items = items
        self.cuts = cuts
        self.reversedRuns = reversedRuns
        self.order = order
        self.stills = stills
    }

    /// The decode index of each presentation rank.
    let order: [Int]

    /// The still an item shows, if it is one.
    func still(_ item: Item) -> Still? {
        guard case .encoded(let span, let frame) = item, case .still(let still) = spans[span].picture(frame) else { return nil }
        return still
    }

    /// How many held frames and black frames the stills are.
    var stillCounts: (held: Int, black: Int) {
        let stills = spans.flatMap(\.parts).compactMap { if case .still(let s) = $0 { s } else { nil } }
        return (stills.count { $0.held != nil }, stills.count { $0.held == nil })
    }

    /// Spans that run past a keyframe copying could not resume from (an open GOP's recovery
    /// point that cannot be rewritten as an IDR picture, see ``OpenGOPResume``): the
    /// re-encoding that such open GOPs cost.
    func spansPastKeyframes(_ scan: VideoScan) -> [Range<Int>] {
        spans.flatMap(\.forwardRanks).filter { span in span.dropFirst().contains { scan.isKey[$0] && !scan.smartCutPoints.resumes[$0] } }
    }

    /// How many frames are re-encoded.
    var encodedFrames: Int { spans.reduce(0) { $0 + $1.count } }

    /// The source packet each item shows (for its timing): re-encoded frames take their
    /// source frame's, a held frame the held one's; nil for black.
    func sourceIndex(_ item: Item) -> Int? {
        switch item {
        case .copy(let i): i
        case .encoded(let span, let frame):
            switch spans[span].picture(frame) {
            case .rank(let rank): order[rank]
            case .still(let still): still.held.map { order[$0] }
            }
        }
    }

    /// Why video stream `stream` of `movie` (scanned as `scan`) cannot be cut frame-exactly
    /// into `container` for `segments`, or nil when it can: re-encoding needs to match what it
    /// splices into (``SpliceFormat``), and the plan covers what passthrough maps simply.
    /// `opened` is the movie already open, when the caller has it.
    static func refusal(container: Container, movie: URL, stream: Int, name: String, scan: VideoScan,
                        segments: [CompositionTrackSegment], opened: InputFormatContext? = nil) -> String? {
        guard container.isQuickTime || container.isFullMatroska else { return "the output is \(container.displayName)" }
        let input: InputFormatContext
        do { input = try opened ?? InputFormatContext(path: movie.path) } catch { return "\(error)" }
        if let why = SpliceFormat.refusal(input.stream(stream)) { return "\(name)'s video \(why)" }
        // Holds are re-encoded pictures when the timeline re-encodes anyway (it plays backwards,
        // or a gap needs black); alone, the held frame's copy shows them (nothing re-encoded).
        if segments.contains(where: \.isHold) && !segments.contains(where: { $0.isReversed || $0.isEmpty }) {
            return "the timeline holds a frame"
        }
        if scan.packets.contains(where: \.hidden) { return "\(name)'s edit list hides frames" }
        if scan.packets.contains(where: \.damaged) { return "\(name) has damaged packets" }
        return nil
    }
}

extension SmartCut.Span.Part {
    var count: Int {
        switch self {
        case .frames(let ranks, _): ranks.count
        case .still: 1
        }
    }
    var isStill: Bool { if case .still = self { true } else { false } }
}
