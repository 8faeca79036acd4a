import Composition
import PropertyBased
import Testing
import TestSupport

/// Fitting a timeline to an audio codec's frames with the video's frame times (issue 50): the
/// fitted timeline plays exactly the frames the edited one plays, in the same order; only
/// times move, a cut's content by less than half an audio frame.
@Suite struct FrameTimesFitTests {
    static let aac = FrameGrid(samplesPerFrame: 1024, sampleRate: 48000, codecName: "AAC")
    static let aac44 = FrameGrid(samplesPerFrame: 1024, sampleRate: 44100, codecName: "AAC")

    /// The frames of a 10 s movie at `fps` (a fraction: 24, 30000/1001, 240).
    func frames(fps: Rational) throws -> FrameTimes {
        let step = try Time(seconds: fps.reciprocal)
        var times: [Time] = [], t = Time.zero
        while t < .seconds(10) {
            times.append(t)
            t = try t + step
        }
        return FrameTimes(sorted: times)
    }

    /// The issue's smallest case: a 24 fps clip, `remove 13/24-17/24`, then `remove 3/4-5/6`
    /// (source 22/24-1 s). Fitted without the frames, the second cut's end moved past source
    /// frame 24 (1.0 s), which the export then left out; with them, every frame stays.
    @Test func theFrameAfterACutStays() throws {
        var c = try Composition(asset: movie("3"))
        try c.removeTimeRange(range("13/24", "17/24"))
        try c.removeTimeRange(range("3/4", "5/6"))
        let original = c.tracks[0].segments
        let frames = try frames(fps: r("24"))
        let fit = try FrameGridFit.fitted(original, to: Self.aac44, frames: frames)
        #expect(fit.moved > 0)
        for (a, b) in zip(original, fit.segments) {
            #expect(frames.count(in: a.source!) == frames.count(in: b.source!), "\(a.source!) became \(b.source!)")
        }
        #expect(fit.segments[2].source!.start <= .seconds(1))
        // Without the frames, the old fit moved the end across the frame at 1 s.
        let blind = try FrameGridFit.fitted(original, to: Self.aac44)
        #expect(blind.segments[2].source!.start > .seconds(1))
    }

    /// Random timelines at frame rates from 24 to 240: each segment plays the same frames
    /// (the same first frame and count), its offset after a fitted cut is whole audio frames,
    /// and each side of a cut moves by less than one audio frame. At high frame rates some cuts
    /// cannot be fitted between two frames and stay where they are.
    @Test(arguments: [(aac, "24"), (aac44, "30000/1001"), (aac, "60"), (aac, "240")])
    func everyFrameStaysOnItsSide(grid: FrameGrid, fps: String) async throws {
        let frames = try frames(fps: r(fps))
        let audioFrame = try grid.frameDuration
        let checked = Counter(), fittedCuts = Counter()
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...10)) { seed, edits in
            let original = randomComposition(seed: seed, edits: edits).tracks[0].segments
            for cuts in [FrameGridFit.CutSide.end, .start] {
                let fit: (segments: [CompositionTrackSegment], moved: Int)
                do { fit = try FrameGridFit.fitted(original, to: grid, cuts: cuts, frames: frames) } catch CompositionError.overflow { return } catch {
                    Issue.record("seed \(seed): \(error)"); return
                }
                #expect(fit.segments.count == original.count, "seed \(seed)")
                for (index, (a, b)) in zip(original, fit.segments).enumerated() {
                    guard let sa = a.source, let sb = b.source else { continue }
                    #expect(frames.count(in: sa) == frames.count(in: sb) && frames.window(around: sa.start).upper == frames.window(around: sb.start).upper,
                            "seed \(seed) (\(cuts)): segment \(index) played source \(sa), fitted \(sb): its frames changed")
                    if a.rate == .one, index > 0, sa.start != sb.start {
                        // A cut whose end moved was fitted: the offset after it is whole audio
                        // frames, and each side moved by less than one.
                        let offset = try (b.target.start - sb.start - reference(fit.segments)).ratio(to: audioFrame)
                        #expect(offset.denominator == 1, "seed \(seed): offset \(offset) audio frames after segment \(index)'s start")
                        #expect(try magnitude(sb.start - sa.start) < audioFrame && magnitude(sb.end - sa.end) < audioFrame,
                                "seed \(seed): segment \(index) moved from \(sa) to \(sb)")
                        fittedCuts.add()
                    }
                }
                checked.add()
            }
        }
        #expect(checked.value >= 300, "only \(checked.value) timelines were checked")
        // At 240 fps a frame lasts 4.2 ms and most cuts cannot be fitted between two frames: one
        // run of the 400 timelines fitted 49 cuts.
        #expect(fittedCuts.value >= 20, "only \(fittedCuts.value) cuts were fitted")
    }

    /// The offset every fitted offset is whole frames from: the first segment's when it plays at 1x.
    private func reference(_ segments: [CompositionTrackSegment]) throws -> Time {
        guard let first = segments.first, first.rate == .one, let source = first.source else { return .zero }
        return try first.target.start - source.start
    }

    private func magnitude(_ t: Time) throws(CompositionError) -> Time { t < .zero ? try -t : t }
}
