import Foundation
import Composition

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

    /// Frames to re-encode: presentation ranks `[from, to)`, encoded in presentation order, or
    /// from the last to the first for a run the timeline plays backwards.
    struct Span: Equatable {
        let ranks: Range<Int>
        var reversed = false
        var count: Int { ranks.count }
        var lowerBound: Int { ranks.lowerBound }
        /// The presentation rank of the span's `frame`-th encoded frame.
        func rank(_ frame: Int) -> Int { reversed ? ranks.upperBound - 1 - frame : ranks.lowerBound + frame }
    }

    /// The spans to re-encode, in the order the output shows them.
    let spans: [Span]
    let items: [Item]
    /// The timeline's cuts that needed frames re-encoded.
    let cuts: Int
    /// The reversed runs that are re-encoded (a long-GOP stream played backwards).
    let reversedRuns: Int

    /// Plans `scan`'s frames for `segments` (the timeline, cuts unmoved).
    init(scan: VideoScan, segments: [CompositionTrackSegment]) {
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
            items += (0..<span.count).map { .encoded(span: spans.count, frame: $0) }
            spans.append(span)
        }
        for run in PlayedRun.runs(times: points.times, segments: segments) {
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
    }

    /// The decode index of each presentation rank.
    let order: [Int]

    /// Spans that run past a keyframe copying could not resume from (an open GOP's recovery
    /// point that cannot be rewritten as an IDR picture, see ``OpenGOPResume``): the
    /// re-encoding that such open GOPs cost.
    func spansPastKeyframes(_ scan: VideoScan) -> [Range<Int>] {
        spans.filter { !$0.reversed }.map(\.ranks).filter { span in span.dropFirst().contains { scan.isKey[$0] && !scan.smartCutPoints.resumes[$0] } }
    }

    /// How many frames are re-encoded.
    var encodedFrames: Int { spans.reduce(0) { $0 + $1.count } }

    /// The source packet each item shows (for its timing): re-encoded frames take their
    /// source frame's.
    func sourceIndex(_ item: Item) -> Int {
        switch item {
        case .copy(let i): i
        case .encoded(let span, let frame): order[spans[span].rank(frame)]
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
        if segments.contains(where: \.isHold) { return "the timeline holds a frame" }
        if scan.packets.contains(where: \.hidden) { return "\(name)'s edit list hides frames" }
        if scan.packets.contains(where: \.damaged) { return "\(name) has damaged packets" }
        return nil
    }
}
