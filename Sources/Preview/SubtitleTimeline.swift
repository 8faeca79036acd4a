import Composition
import Media

/// A subtitle track's cues on the timeline (already retimed through it, see
/// ``SubtitleCue/read(movie:stream:segments:origin:)``), asked which text shows at a time.
struct SubtitleTimeline {
    /// The subtitle stream the cues come from.
    let stream: PlayableStream
    /// In order of their start.
    let cues: [SubtitleCue]
    /// The longest cue, which bounds how far back a cue that still shows can have started.
    private let longest: Time

    init(stream: PlayableStream, cues: [SubtitleCue]) {
        self.stream = stream
        self.cues = cues.sorted { $0.range.start < $1.range.start }
        longest = cues.map(\.range.duration).max() ?? .zero
    }

    /// The text of every cue showing at `t`, earlier cues first, one per line; nil when none.
    func text(at t: Time) -> String? {
        // The first cue that starts after t, by binary search; cues showing at t are before it.
        var low = 0, high = cues.count
        while low < high {
            let mid = (low + high) / 2
            if cues[mid].range.start <= t { low = mid + 1 } else { high = mid }
        }
        var showing: [String] = []
        var k = low - 1
        let earliest = (try? t - longest) ?? .zero
        while k >= 0, cues[k].range.start >= earliest {
            if cues[k].range.contains(t) { showing.append(cues[k].text) }
            k -= 1
        }
        return showing.isEmpty ? nil : showing.reversed().joined(separator: "\n")
    }
}
