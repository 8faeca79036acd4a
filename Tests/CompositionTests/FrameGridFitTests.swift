import Composition
import PropertyBased
import Testing
import TestSupport

/// Fitting a timeline to an audio codec's frames (``FrameGridFit``): every offset an edit
/// leaves is a whole number of frames, every edit moves by less than half a frame, nothing else
/// changes.
@Suite struct FrameGridFitTests {
    static let aac = FrameGrid(samplesPerFrame: 1024, sampleRate: 48000, codecName: "AAC")
    static let aac44 = FrameGrid(samplesPerFrame: 1024, sampleRate: 44100, codecName: "AAC")
    static let opus = FrameGrid(samplesPerFrame: 960, sampleRate: 48000, codecName: "Opus")

    /// The headline edit: 3.2-5.0 of a 60 s movie at 0.25x. The offset after it, 5.4 s, is
    /// 253.125 AAC frames; the scaled range loses 128 samples (2.667 ms) and plays at 1.8/7.19733.
    @Test func theHeadlineScaleLosesAnEighthOfAFrame() throws {
        var c = try Composition(asset: movie("60"))
        try c.scaleTimeRange(range("3.2", "5.0"), toDuration: s("7.2"))
        let (fitted, summary) = try FrameGridFit.fitted(c, to: Self.aac)
        let segments = fitted.tracks[0].segments
        #expect(segments.count == 3)
        #expect(segments[1].target == (try TimeRange(start: s("3.2"), duration: s("7.2") - Time(value: 128, timescale: 48000))))
        #expect(segments[1].source == range("3.2", "5.0"))
        #expect(segments[2].source == range("5.0", "60"))
        #expect(try (segments[2].target.start - segments[2].source!.start).ratio(to: Self.aac.frameDuration) == Rational(253))
        #expect(summary.after == (try s("65.4") - Time(value: 128, timescale: 48000)))
        #expect(summary.line == "fitted to whole AAC frames: 65.397 s for 65.4 s")
        #expect(fitted.tracks[1] == (try CompositionTrack(trackID: 1, mediaType: .audio, segments: segments)))
    }

    @Test func anUntouchedTimelineAndAFittedOneDoNotMove() throws {
        let c = try Composition(asset: movie("60"))
        let (same, summary) = try FrameGridFit.fitted(c, to: Self.aac)
        #expect(same == c)
        #expect(summary.line == nil)
        var edited = c
        // 5.4 s is not a whole number of frames; 0.384 s (18 frames of 1024 at 48 kHz) is.
        try edited.insertEmptyTimeRange(TimeRange(start: s("2"), duration: s("0.384")))
        #expect(try FrameGridFit.fitted(edited, to: Self.aac).1.moved == 0)
    }

    @Test func aCutMovesItsEndToTheNearestFrame() throws {
        var c = try Composition(asset: movie("60"))
        try c.removeTimeRange(range("12", "13"))  // 1 s = 46.875 frames: the end moves 0.125 frame later
        let segments = try FrameGridFit.fitted(c, to: Self.aac).0.tracks[0].segments
        #expect(segments[1].source == (try TimeRange(start: s("13") + Time(value: 128, timescale: 48000), end: s("60"))))
        #expect(segments[1].target.start == s("12"))
    }

    /// Random timelines (scales, removals, gaps, freezes) from seeds: each property printed with
    /// its seed when it fails.
    @Test(arguments: [(aac, FrameGridFit.CutSide.end), (aac44, .end), (opus, .end), (aac, .start)])
    func fittedTimelinesKeepTheirShape(grid: FrameGrid, cuts: FrameGridFit.CutSide) async throws {
        let checked = Counter(), offsets = Counter()
        let frame = try grid.frameDuration
        let half = try frame.multiplied(by: r("1/2"))
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...10)) { seed, edits in
            var g = SplitMix64(state: seed)
            var c = randomComposition(seed: seed &+ 1, edits: edits)
            if Bool.random(using: &g), c.duration > .zero {
                let at = randomTime(upTo: c.duration, &g)
                try? c.insertHold(at: at, duration: randomTime(upTo: .seconds(1), &g))
            }
            let original = c.tracks[0].segments
            let fit: (segments: [CompositionTrackSegment], moved: Int)
            do { fit = try FrameGridFit.fitted(original, to: grid, cuts: cuts) } catch CompositionError.overflow { return } catch {
                Issue.record("seed \(seed): \(error)"); return
            }
            do {
                try check(original, fit.segments, moved: fit.moved, frame: frame, half: half, cuts: cuts, seed: seed, offsets: offsets)
                // Fitting a fitted timeline changes nothing.
                #expect(try FrameGridFit.fitted(fit.segments, to: grid, cuts: cuts).moved == 0, "seed \(seed)")
                checked.add()
            } catch CompositionError.overflow { return } catch { Issue.record("seed \(seed): \(error)") }
        }
        // At 44.1 kHz a frame lasts 1024/44100 s, and 9-14 % of random timelines overflow the
        // composition's exact arithmetic (refused, not fitted): 249-270 of 300 were checked in 25
        // runs, so a minimum of 250 failed about one run in twenty.
        #expect(checked.value >= 225, "only \(checked.value) of 300 timelines were checked")
        #expect(offsets.value >= 300, "only \(offsets.value) offsets after an edit were checked")
    }

    private func check(_ original: [CompositionTrackSegment], _ fitted: [CompositionTrackSegment], moved: Int,
                       frame: Time, half: Time, cuts: FrameGridFit.CutSide, seed: UInt64, offsets: Counter) throws {
        #expect(fitted.count == original.count, "seed \(seed): segments appear or vanish")
        _ = try CompositionTrack(trackID: 0, mediaType: .video, segments: fitted)  // tiles from 0
        var previousSourceEnd: Time?, previousOriginalEnd: Time?
        // Offsets are whole frames from the first segment's when it plays at 1x, else from 0.
        let reference = try fitted.first.flatMap { $0.rate == .one ? $0 : nil }.map { try $0.target.start - $0.source!.start } ?? .zero
        #expect(reference == (try original.first.flatMap { $0.rate == .one ? $0 : nil }.map { try $0.target.start - $0.source!.start } ?? .zero),
                "seed \(seed): the first segment moved")
        for (index, (a, b)) in zip(original, fitted).enumerated() {
            #expect(a.isEmpty == b.isEmpty && a.heldTime == b.heldTime && (a.rate == .one) == (b.rate == .one), "seed \(seed): kind changed")
            #expect(b.target.duration > .zero)
            if b.rate == .one, let sa = a.source, let sb = b.source {
                // The offset is a whole number of frames.
                let frames = try (b.target.start - sb.start - reference).ratio(to: frame)
                // (A 1x segment shorter than a frame after a cut may be left as it is: no packet
                // of it can be copied anyway.)
                if sb.duration >= frame {
                    #expect(frames.denominator == 1, "seed \(seed): offset \(frames) frames at \(b.target.start)")
                    offsets.add()
                }
                // One side of a cut moves: its end (this segment's source start), or with
                // `.start` its start (this segment's source end, when a 1x segment follows; and
                // its source start when the segment before is too short to end earlier).
                let next = index + 1 < original.count ? original[index + 1] : nil
                let cutFollows = next.map { $0.rate == .one && $0.source != nil } ?? false
                if cuts == .end || !cutFollows { #expect(sa.end == sb.end, "seed \(seed): a 1x segment's end moved") }
                let before = try previousOriginalEnd.map { try sa.start - $0 }
                let after = try next?.source.map { try $0.start - sa.end }
                let startShift = try sb.start - sa.start, endShift = try sb.end - sa.end
                #expect(try magnitude(startShift) <= half || ((before.map { $0 < half } ?? false) && magnitude(startShift) < frame),
                        "seed \(seed): a cut's end moved \(startShift.seconds) s")
                #expect(try (cuts == .start ? magnitude(endShift) < frame : magnitude(endShift) <= half)
                        || ((after.map { $0 < frame } ?? false) && magnitude(endShift) < frame),
                        "seed \(seed): a cut's start moved \(endShift.seconds) s")
            } else {
                #expect(a.source == b.source, "seed \(seed): an edited segment's source changed")
                let change = try b.target.duration - a.target.duration
                // Less than half a frame, unless that would leave nothing or play at 1x.
                let atOne = try a.source.map { try $0.duration == b.target.duration - frame || $0.duration == b.target.duration + frame } ?? false
                #expect(try magnitude(change) <= half || ((a.target.duration <= half || atOne) && magnitude(change) < frame.multiplied(by: r("5/2"))),
                        "seed \(seed): a segment's length moved \(change.seconds) s")
            }
            // The map stays monotonic: media never plays source before what played before it.
            if let sb = b.source {
                if let previous = previousSourceEnd, let before = previousOriginalEnd, let sa = a.source, sa.start >= before {
                    #expect(sb.start >= previous, "seed \(seed): source plays twice at \(sb.start)")
                }
                previousSourceEnd = sb.end
                previousOriginalEnd = a.source?.end
            }
        }
        // The timeline's end moves by the sum of the segments' changes, each within what the
        // checks above allow: half a frame, or for a segment too short to keep (or one that
        // would play at 1x) up to two and a half.
        let drift = try fitted.last!.target.end - original.last!.target.end
        #expect(try magnitude(drift) <= frame.multiplied(by: Rational(Int64(5 * max(moved, 1)), 2)), "seed \(seed): the timeline moved \(drift.seconds) s")
    }

    private func magnitude(_ t: Time) throws(CompositionError) -> Time { t < .zero ? try -t : t }
}
