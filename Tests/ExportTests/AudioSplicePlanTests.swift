import Testing
@testable import Export
import TimePitch

/// Which packets smart audio copies, from made-up packet lists: no file, no codec.
@Suite struct AudioSplicePlanTests {
    /// `count` regular packets of `frame` samples from sample `first`.
    func packets(_ count: Int, frame: Int64 = 1024, first: Int64 = -1024) -> [AudioSplicePlan.Packet] {
        (0..<count).map { AudioSplicePlan.Packet(start: first + Int64($0) * frame, count: frame) }
    }

    func copies(_ plan: AudioSplicePlan) -> [(packets: Range<Int>, offset: Int64)] {
        plan.pieces.compactMap { if case .copy(let p, let o, _) = $0 { (p, o) } else { nil } }
    }

    /// The pieces tile the timeline with no gap and no overlap, from at or before 0 to `total`.
    func tiles(_ plan: AudioSplicePlan, total: Int64) -> Bool {
        var position: Int64?
        for piece in plan.pieces {
            let output: Range<Int64>
            switch piece {
            case .copy(_, _, let o), .encode(let o, _): output = o
            }
            if let position, output.lowerBound != position { return false }
            if position == nil && output.lowerBound > 0 { return false }
            position = output.upperBound
        }
        return position == total
    }

    @Test func anUntouchedStretchIsCopiedInsideItsMargins() {
        // 0-100k untouched, the rest edited.
        let plan = AudioSplicePlan(spans: [UntouchedSpan(output: 0..<100_000, offset: 0)], packets: packets(200),
                                   total: 150_000, frame: 1024, guardFrames: 3)
        let runs = copies(plan)
        #expect(runs.count == 1)
        // The first packet whose audio starts 3 frames in, the last that ends 3 frames before 100k.
        #expect(runs.first?.packets == 4..<95)
        #expect(tiles(plan, total: 150_000))
        #expect(plan.offGrid == 0)
    }

    @Test func runsOffTheGridAreRenderedAndCounted() {
        // Two untouched spans whose packets land 500 samples apart on the frame grid: the longer is copied.
        let spans = [UntouchedSpan(output: 0..<50_000, offset: 0), UntouchedSpan(output: 80_000..<300_000, offset: 30_500)]
        let plan = AudioSplicePlan(spans: spans, packets: packets(300), total: 300_000, frame: 1024, guardFrames: 3)
        let runs = copies(plan)
        #expect(runs.count == 1)
        #expect(runs.first?.offset == 30_500)
        #expect(plan.offGrid > 40 * 1024)
        #expect(tiles(plan, total: 300_000))
        // The first encoded span starts on the copied grid, before 0.
        if case .encode(let first, _) = plan.pieces.first {
            #expect(first.lowerBound <= 0 && first.lowerBound > -1024)
            #expect((first.upperBound - first.lowerBound) % 1024 == 0)
        } else {
            Issue.record("the plan starts with \(String(describing: plan.pieces.first))")
        }
    }

    @Test func matroskaStartsAtZeroAndBridgesOntoTheGrid() {
        // An Opus-like encoder (delay 312, 960-sample packets) and runs 500 samples off its grid:
        // the longer run is copied, the first span starts at 0 with a bridge that ends on an
        // encoder frame boundary after the stream's first packet.
        let spans = [UntouchedSpan(output: 0..<50_000, offset: 500), UntouchedSpan(output: 80_000..<300_000, offset: 30_500)]
        let list = packets(310, frame: 960, first: -312)
        let plan = AudioSplicePlan(spans: spans, packets: list, total: 300_000, frame: 960, guardFrames: 3, canDiscard: true,
                                   encoderDelay: 312)
        #expect(tiles(plan, total: 300_000))
        guard case .encode(let first, let bridge?) = plan.pieces.first else {
            Issue.record("no bridge at the start: \(String(describing: plan.pieces.first))")
            return
        }
        #expect(first.lowerBound == 0)
        #expect((Int64(first.count) + 312 + Int64(bridge.surplus)) % 960 == 0)
        #expect((bridge.at + Int64(bridge.surplus) + 312) % 960 == 0 && bridge.at + Int64(bridge.surplus) > 960 - 312)
        // No bridge anywhere else.
        #expect(plan.pieces.dropFirst().allSatisfy { if case .encode(_, let b) = $0 { b == nil } else { true } })
    }

    @Test func pcmIsCopiedOnBothSidesOfAnEdit() {
        let spans = [UntouchedSpan(output: 0..<50_000, offset: 0), UntouchedSpan(output: 80_000..<300_000, offset: 30_500)]
        let plan = AudioSplicePlan(spans: spans, packets: packets(300, first: 0), total: 300_000, frame: 1, guardFrames: 0)
        #expect(copies(plan).count == 2)
        #expect(plan.offGrid == 0)
        #expect(tiles(plan, total: 300_000))
    }

    @Test func damagedOrJumpingPacketsAreNeverCopied() {
        var list = packets(100)
        list[50].unusable = true
        let plan = AudioSplicePlan(spans: [UntouchedSpan(output: 0..<200_000, offset: 0)], packets: list,
                                   total: 200_000, frame: 1024, guardFrames: 3)
        let runs = copies(plan)
        #expect(runs.count == 2)
        #expect(runs.allSatisfy { !$0.packets.contains(50) })
        #expect(tiles(plan, total: 200_000))
    }

    @Test func nothingUntouchedCopiesNothing() {
        let plan = AudioSplicePlan(spans: [], packets: packets(100), total: 100_000, frame: 1024, guardFrames: 3)
        #expect(!plan.copiesAnything)
        #expect(plan.pieces.count == 1)
    }

    /// The issue's 10-minute case: the 20 s before a slowdown are off the grid of the 570 s
    /// after it, so one stretch runs from 0 to the end of the slowed part. Shared by workers, it
    /// is cut once, just inside the end of the unchanged audio, on the stretch's frame grid:
    /// the slowed audio is rendered by one worker only.
    @Test func aLongStretchIsCutInsideUnchangedAudioForTheWorkers() {
        let rate: Int64 = 48000
        // 0-20 s untouched; 20-40 s the slowed 10 s; from 40 s the rest, 10 s later (468.75
        // frames: off the grid of what came before).
        let spans = [UntouchedSpan(output: 0..<(20 * rate), offset: 0), UntouchedSpan(output: (40 * rate)..<(610 * rate), offset: 10 * rate)]
        let whole = AudioSplicePlan(spans: spans, packets: packets(28_200), total: 610 * rate, frame: 1024, guardFrames: 3)
        let shared = AudioSplicePlan(spans: spans, packets: packets(28_200), total: 610 * rate, frame: 1024, guardFrames: 3,
                                     sharedAbove: 2 * rate)
        let stretches = { (plan: AudioSplicePlan) in plan.pieces.compactMap { if case .encode(let o, _) = $0 { o } else { nil } } }
        let first = stretches(whole)[0]
        #expect(first.lowerBound <= 0 && first.upperBound > 40 * rate)
        let cut = stretches(shared)
        #expect(cut.count == stretches(whole).count + 1, "\(cut)")
        #expect(cut[0].lowerBound == first.lowerBound && cut[1].upperBound == first.upperBound)
        // On the grid, at least three frames before the unchanged audio ends.
        #expect((cut[0].upperBound - first.lowerBound) % 1024 == 0)
        #expect(cut[0].upperBound <= 20 * rate - 3 * 1024 && cut[0].upperBound > 20 * rate - 4 * 1024)
        #expect(tiles(shared, total: 610 * rate) && copies(shared).map(\.packets) == copies(whole).map(\.packets))
        // A stretch shorter than twice the shortest piece stays whole.
        let short = AudioSplicePlan(spans: spans, packets: packets(28_200), total: 610 * rate, frame: 1024, guardFrames: 3,
                                    sharedAbove: 30 * rate)
        #expect(short.pieces == whole.pieces)
    }
}
