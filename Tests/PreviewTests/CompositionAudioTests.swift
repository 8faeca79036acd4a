import Composition
import Foundation
@testable import Preview
import TestSupport
import Testing
import TimePitch
import Media

/// The preview's audio is the export's: every sample of a timeline with scaled sections, cuts,
/// gaps and reversed ranges equals what the offline renderer writes for the whole track, joins included.
@Suite struct CompositionAudioTests {
    @Test(arguments: [false, true]) func previewAudioEqualsTheExportRender(varispeed: Bool) throws {
        // A WAV source: decoding it is exact wherever reading starts, so any difference is the
        // layout's. (AAC decoded after a seek differs from a decode from the top by ~1e-4.)
        let url = TestSupport.media("music.wav")
        let compared = Counter(), joins = Counter()
        for seed in UInt64(1)...4 {
            var g = SplitMix64(state: seed)
            var composition = try Composition(asset: movie("4"))
            var edits = 0
            while edits < 5 {
                guard let picked = randomRange(within: composition.duration, &g), picked.duration < .seconds(1) else { continue }
                edits += 1
                switch Int.random(in: 0..<4, using: &g) {
                case 0: try composition.removeTimeRange(picked)
                case 3: try composition.reverseTimeRange(picked)
                case 1: try composition.insertEmptyTimeRange(TimeRange(start: picked.start, duration: s("0.2")))
                default:
                    let rate = ["1/2", "2/3", "3/2", "2", "1001/1000"].map(r).randomElement(using: &g)!
                    try composition.scaleTimeRange(picked, toDuration: picked.duration.multiplied(by: rate.reciprocal))
                }
            }
            let track = try #require(composition.track(withID: 1))
            let preview = try CompositionAudio(movie: url, track: track, varispeed: varispeed)
            let reader = try AudioFileReader(url: url)
            let renderer = TimelineRenderer(format: reader.format, settings: try TimePitchSettings(algorithm: varispeed ? .varispeed : .timeDomain))
            renderer.ditherTimeDomainInput = !reader.hasCoarseQuantisation
            var exported = [[Float]](repeating: [], count: reader.format.channels)
            try renderer.render(track.segments, from: reader, to: { block, count in
                for c in exported.indices { exported[c].append(contentsOf: block[c][0..<count]) }
            })
            #expect(Int64(exported[0].count) == preview.frameCount, "seed \(seed)")
            let heard = try preview.read(from: 0, count: exported[0].count)
            var worst: Float = 0
            for c in exported.indices { for i in exported[c].indices { worst = max(worst, abs(exported[c][i] - heard[c][i])) } }
            #expect(worst < 1e-6, "seed \(seed): preview and export differ by \(worst)")
            compared.add()
            for _ in track.segments.dropFirst() { joins.add() }
        }
        #expect(compared.value == 4)
        #expect(joins.value >= 12, "the random timelines had only \(joins.value) joins")
    }
}
