import Foundation

/// How ``TimelineRenderer`` stretches a speed ramp's steps in one Rubber Band run.
///
/// A ramp is many short stretched segments over contiguous source. Stretched one by one and
/// crossfaded, the runs' phases disagree at every join and a steady tone dips in level there.
/// Joined, they are one run whose key-frame map (source frame → output frame) puts every step
/// boundary exactly where the timeline has it; Rubber Band changes the ratio between key frames
/// itself, with no join at all.
extension TimelineRenderer {
    /// Joins each run of neighbouring `.stretch` plans whose source continues into one plan
    /// whose `keyFrames` are the inner step boundaries, and which owns the run's source: its
    /// inner joins are inside one run, its outer edges see padding like any segment's. (Onsets split joined plans afterwards,
    /// ``splitAtOnsets(_:source:)``, so attacks still land on their sample.)
    func joinedSteps(_ plans: [Plan]) -> [Plan] {
        guard joinsSteps else { return plans }
        var result: [Plan] = []
        for plan in plans {
            guard let last = result.last, last.kind == .stretch, plan.kind == .stretch, !last.endsAtOnset, last.reversed == plan.reversed,
                  last.sourceEnd == plan.sourceStart, last.outEnd == plan.outStart, plan.sourceCount > 0, last.sourceCount > 0 else {
                result.append(plan)
                continue
            }
            var joined = Plan(kind: .stretch, outStart: last.outStart, outEnd: plan.outEnd, sourceStart: last.sourceStart,
                              sourceEnd: plan.sourceEnd, rate: nil)
            joined.fadeIn = last.fadeIn
            joined.fadeOut = plan.fadeOut
            joined.endsAtOnset = plan.endsAtOnset
            joined.silentFrom = plan.silentFrom
            joined.reversed = plan.reversed
            joined.own = last.own.lowerBound..<plan.own.upperBound
            joined.keyFrames = last.keyFrames + [(plan.sourceStart, plan.outStart)] + plan.keyFrames
            result[result.count - 1] = joined
        }
        return result
    }

    /// The output frame at which source frame `s` (inside `plan`) plays: linear within its step,
    /// each step being one segment at one rate.
    func outputPosition(of s: Int64, in plan: Plan) -> Int64 {
        let points = [(plan.sourceStart, plan.outStart)] + plan.keyFrames + [(plan.sourceEnd, plan.outEnd)]
        guard let k = points.indices.dropLast().last(where: { points[$0].0 <= s }) else { return plan.outStart }
        let (s0, o0) = points[k], (s1, o1) = points[k + 1]
        guard s1 > s0 else { return o0 }
        return o0 + Int64((Double(s - s0) * Double(o1 - o0) / Double(s1 - s0)).rounded())
    }

    /// For a joined plan: the source frames to read (with context at the first and last steps'
    /// ratios), the output position of the first frame, the overall time ratio, and the key-frame
    /// map relative to the first frame read (the plan's start and end, and every inner boundary).
    func steppedContext(_ plan: Plan) -> (first: Int64, count: Int, outputOrigin: Int64, ratio: Double, map: [(input: Int, output: Int)]) {
        let points = [(plan.sourceStart, plan.outStart)] + plan.keyFrames + [(plan.sourceEnd, plan.outEnd)]
        func ratio(_ a: (Int64, Int64), _ b: (Int64, Int64)) -> Double { Double(b.1 - a.1) / Double(max(1, b.0 - a.0)) }
        let firstRatio = ratio(points[0], points[1]), lastRatio = ratio(points[points.count - 2], points[points.count - 1])
        func warmUp(_ r: Double) -> Double { Double(contextFrames) * min(1, 4 / r) }
        // Padding outside the run's own source, as for one segment (see `context(_:ratio:)`).
        let before = warmUpBefore(plan, wanted: Int64(warmUp(firstRatio).rounded(.up)))
        let after = Int64(((plan.endsAtOnset ? 0 : Double(plan.fadeOut)) / lastRatio + warmUp(lastRatio)).rounded(.up))
        let first = plan.sourceStart - before
        let origin = plan.outStart - Int64((Double(before) * firstRatio).rounded())
        let count = Int(plan.sourceCount + before + after)
        let map = points.map { (input: Int($0.0 - first), output: Int($0.1 - origin)) }
        let total = Double(plan.outEnd - origin) + Double(after) * lastRatio
        return (first, count, origin, total / Double(count), map)
    }
}
