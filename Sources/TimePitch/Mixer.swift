import Foundation

/// Sums segments' weighted output into a window of the timeline and hands finished frames to
/// the sink in order.
struct Mixer {
    let channels: Int
    /// Accumulated frames from output position `flushed` on.
    private var pending: [[Float]]
    private(set) var flushed: Int64 = 0

    /// A mixer whose first output frame is `start`.
    init(channels: Int, start: Int64 = 0) {
        self.channels = channels
        self.flushed = start
        self.pending = [[Float]](repeating: [], count: channels)
    }

    /// Adds `count` frames of `block`, which start at output `position`, weighted by the plan's
    /// fades. Frames before what has been flushed are ignored.
    mutating func add(_ block: [[Float]], count: Int, at position: Int64, plan: TimelineRenderer.Plan) {
        let skip = Int(max(0, flushed - position))
        guard skip < count else { return }
        let start = Int(position + Int64(skip) - flushed)
        let needed = start + (count - skip)
        if pending[0].count < needed {
            for c in 0..<channels { pending[c].append(contentsOf: repeatElement(0, count: needed - pending[c].count)) }
        }
        let fadeInStart = plan.fadeInStart, fadeInEnd = plan.fadeInEnd
        let fadeOutStart = plan.fadeOutStart, fadeOutEnd = plan.fadeOutEnd
        let first = position + Int64(skip), last = position + Int64(count)
        if first >= fadeInEnd && last <= fadeOutStart {
            // Wholly between the fades: a plain sum.
            for c in 0..<channels {
                block[c].withUnsafeBufferPointer { input in
                    pending[c].withUnsafeMutableBufferPointer { output in
                        let o = output.baseAddress! + start, i = input.baseAddress! + skip
                        for k in 0..<(count - skip) { o[k] += i[k] }
                    }
                }
            }
            return
        }
        for c in 0..<channels {
            block[c].withUnsafeBufferPointer { input in
                pending[c].withUnsafeMutableBufferPointer { output in
                    for i in skip..<count {
                        let p = position + Int64(i)
                        var weight: Float = 1
                        if p < fadeInEnd {
                            weight = Mixer.ramp(p - fadeInStart, width: plan.fadeIn)
                        } else if p >= fadeOutStart {
                            weight = 1 - Mixer.ramp(p - fadeOutStart, width: plan.fadeOutWidth)
                        }
                        if p < fadeInStart || p >= fadeOutEnd { weight = 0 }
                        output[start + i - skip] += input[i] * weight
                    }
                }
            }
        }
    }

    /// A raised-cosine rise over `width` frames; a ramp and its mirror sum to exactly 1.
    static func ramp(_ index: Int64, width: Int) -> Float {
        guard width > 0 else { return 1 }
        let x = (Double(index) + 0.5) / Double(width)
        return Float(0.5 - 0.5 * cos(Double.pi * min(max(x, 0), 1)))
    }

    /// Sends every frame before output position `end` to the sink (silence where nothing was
    /// added).
    mutating func flush(upTo end: Int64, into sink: AudioSink) throws {
        // Long gaps go out in pieces, so memory stays bounded.
        while end - flushed > 65536 { try flush(upTo: flushed + 65536, into: sink) }
        let count = Int(end - flushed)
        guard count > 0 else { return }
        if pending[0].count < count {
            for c in 0..<channels { pending[c].append(contentsOf: repeatElement(0, count: count - pending[c].count)) }
        }
        let out = pending.map { Array($0[0..<count]) }
        for c in 0..<channels { pending[c].removeFirst(count) }
        try sink(out, count)
        flushed = end
    }
}
