import Composition
import Foundation
@testable import Preview
import Testing
import Media

@Suite struct TrackChoiceTests {
    func stream(_ index: Int, _ language: String?, isDefault: Bool = false, title: String? = nil) -> PlayableStream {
        PlayableStream(index: index, language: language, title: title, isDefault: isDefault, isText: false)
    }

    @Test func theDefaultTrackPlaysFirstAndTCyclesRound() {
        var choice = AudioTrackChoice(tracks: [stream(1, "eng"), stream(2, "fra", isDefault: true), stream(4, nil, title: "Commentary")])
        #expect(choice.stream == 2 && choice.label == "audio 2/3 fra")
        choice.next()
        #expect(choice.stream == 4 && choice.label == "audio 3/3 \"Commentary\"")
        choice.next()
        #expect(choice.stream == 1 && choice.label == "audio 1/3 eng")
        // Without a default, the first; one track needs no label; none plays nothing.
        #expect(AudioTrackChoice(tracks: [stream(1, "eng"), stream(2, "fra")]).stream == 1)
        #expect(AudioTrackChoice(tracks: [stream(1, "eng")]).label == nil)
        var none = AudioTrackChoice(tracks: [])
        none.next()
        #expect(none.stream == nil && none.label == nil)
    }

    @Test func theCuesShowingAtATimeAreFound() throws {
        func cue(_ a: Int64, _ b: Int64, _ text: String) throws -> SubtitleCue {
            SubtitleCue(range: try TimeRange(start: Time(value: a, timescale: 10), end: Time(value: b, timescale: 10)), text: text)
        }
        // A long cue under two short ones, and a gap.
        let cues = [try cue(0, 100, "long"), try cue(10, 20, "one"), try cue(15, 30, "two"), try cue(120, 130, "late")]
        let timeline = SubtitleTimeline(stream: PlayableStream(index: 2, language: nil, title: nil, isDefault: false, isText: true),
                                        cues: cues.reversed())
        var checked = 0
        // Every tenth of a second against a scan of every cue.
        for tick in Int64(0)...140 {
            let t = Time(value: tick, timescale: 10)
            let expected = cues.filter { $0.range.contains(t) }.map(\.text)
            #expect(timeline.text(at: t) == (expected.isEmpty ? nil : expected.joined(separator: "\n")), "at \(tick)")
            checked += 1
        }
        #expect(checked == 141)
        #expect(timeline.text(at: Time(value: 17, timescale: 10)) == "long\none\ntwo")
    }

    @Test func assEventsBecomePlainText() {
        #expect(SubtitleCue.plainText(ass: "0,0,Default,,0,0,0,,{\\i1}Hello{\\i0},\\Nworld\\hagain") == "Hello,\nworld again")
        #expect(SubtitleCue.plainText(ass: "3,0,Default,Bob,0,0,0,,plain") == "plain")
    }
}
