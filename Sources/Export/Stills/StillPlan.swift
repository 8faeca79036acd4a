import Foundation

/// The source frames one still reads: the frame shown, the `best` frames either side of it
/// that its segment plays, and the `merge` frames nearest the one taken.
struct StillPlan {
    let request: StillExporter.Request
    let choice: StillFrameChoice
    let options: StillExporter.Options

    /// The frames compared for sharpness (the frame shown alone without `best`).
    var candidates: ClosedRange<Int> {
        let n = max(0, options.best)
        return max(choice.neighbourhood.lowerBound, choice.frame - n)...min(choice.neighbourhood.upperBound, choice.frame + n)
    }

    /// The `merge` frames of the segment nearest `centre` (itself first), fewer when the
    /// segment has fewer.
    func mergeFrames(around centre: Int) -> [Int] {
        let range = choice.neighbourhood
        var frames = [centre]
        var step = 1
        while frames.count < max(1, options.merge) {
            let before = centre - step, after = centre + step
            guard range.contains(before) || range.contains(after) else { break }
            if range.contains(after) { frames.append(after) }
            if frames.count < options.merge && range.contains(before) { frames.append(before) }
            step += 1
        }
        return frames
    }

    /// Every frame this still may read.
    var frames: ClosedRange<Int> {
        let reach = max(1, options.merge) - 1
        let lower = max(choice.neighbourhood.lowerBound, candidates.lowerBound - reach)
        let upper = min(choice.neighbourhood.upperBound, candidates.upperBound + reach)
        return lower...upper
    }
}
