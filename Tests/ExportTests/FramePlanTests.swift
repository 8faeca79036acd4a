import Composition
@testable import Export
import Foundation
import TestSupport
import Testing
import Media

/// FramePlan against sample and hold computed independently, in floating point, from the clip's
/// known frame times (clip60.mp4: 600 frames at i/60 s).
@Suite struct FramePlanTests {
    @Test(arguments: ["30", "24", "60", "30000/1001"]) func everyOutputFrameShowsTheFrameOnScreenThen(fps text: String) throws {
        let fps = r(text)
        var c = try Composition(asset: movie())
        try c.scaleTimeRange(range("2", "3"), toDuration: s("4"))
        try c.removeTimeRange(range("6", "6.5"))
        try c.insertEmptyTimeRange(TimeRange(start: s("8"), duration: s("0.5")))
        let track = try #require(c.track(withID: 0))
        let movieURL = TestSupport.media("clip60.mp4")
        let stream = try #require(try Prober.probe(movieURL).primaryVideo).index
        let scan = try VideoScan(movie: movieURL, stream: stream, name: "clip60.mp4", warning: { _ in })
        try #require(scan.frameCount == 600)
        let plan = try FramePlan(track: track, scan: scan, fps: fps, selection: .nearest)
        let duration = c.duration.seconds
        #expect(plan.count == Int((duration * fps.doubleValue).rounded()))
        var frames = 0, gaps = 0
        for k in 0..<plan.count {
            // Composition time → source time through the edits above, by hand.
            let t = Double(k) / fps.doubleValue
            let source: Double?
            switch t {
            case ..<2: source = t
            case ..<6: source = 2 + (t - 2) / 4
            case ..<8: source = t - 2.5
            case ..<8.5: source = nil
            default: source = t - 3
            }
            if let source {
                let expected = Int((source * 60 + 1e-9).rounded(.down))
                #expect(plan.sources[k] == .frame(expected), "output frame \(k) at \(t) s")
                #expect(plan.needed[expected])
                frames += 1
            } else {
                #expect(plan.sources[k] == .gap, "output frame \(k) at \(t) s")
                gaps += 1
            }
        }
        #expect(frames >= 290 && gaps >= 10, "checked \(frames) frames and \(gaps) gaps")
    }
}
