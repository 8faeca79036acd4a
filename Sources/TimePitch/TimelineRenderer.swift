import Composition
import Foundation

/// Renders a composition track's audio offline: every segment at its rate, through the chosen
/// algorithm, streamed to a sink in order.
///
/// - **Exact placement.** Segment k occupies output frames `[round(t_k × SR), round(t_k+1 × SR))`,
///   computed from exact composition times, so nothing drifts however many segments there are,
///   and the total is `round(duration × SR)` frames.
/// - **Seamless joins.** Each segment is rendered a few milliseconds past both of its edges (from
///   real source audio where there is any) and neighbours are mixed with complementary
///   raised-cosine ramps, so a join has no click, no gap and no doubled audio.
/// - **Cheap rate-1 segments.** Segments at rate 1 with no pitch shift are copied straight from
///   the source; only the stretched ones cost DSP time.
/// - **Bounded memory.** Audio moves in blocks; only a crossfade's worth is held between
///   segments, whatever the movie's length.
/// - **Aligned.** Rubber Band runs offline, with the segment's exact input length announced and a
///   study pass first, so its output starts exactly where its input does (no lost latency).
public final class TimelineRenderer {
    public let format: AudioFormat
    public let settings: TimePitchSettings
    /// Frames per read and process call.
    public var blockSize = 4096
    /// Half the length of a join's crossfade, in frames (5 ms, so joins fade over 10 ms).
    public var crossfadeHalfWidth: Int
    /// Whether R2's input gets -120 dBFS dither (see `stretch`). Sources of 16 bits or fewer
    /// already carry far more quantisation noise than that, so callers turn it off for them.
    public var ditherTimeDomainInput = true
    /// Extra input read before and after a stretched segment, beyond the crossfade, so the
    /// stretcher has settled by the time its audio is heard (see `context`).
    public var contextFrames = 2048

    public init(format: AudioFormat, settings: TimePitchSettings) {
        self.format = format
        self.settings = settings
        self.crossfadeHalfWidth = max(1, format.sampleRate / 200)
    }

    /// How a segment's frames are made.
    enum Kind: Equatable { case gap, copy, stretch, resample }

    struct Plan {
        let kind: Kind
        /// Output frames `[outStart, outEnd)`.
        let outStart: Int64
        let outEnd: Int64
        /// Source frames `[sourceStart, sourceEnd)`.
        let sourceStart: Int64
        let sourceEnd: Int64
        /// Exact playback rate (source over target).
        let rate: Rational?
        /// Crossfade half-widths at the start and end.
        var fadeIn = 0
        var fadeOut = 0

        var outCount: Int64 { outEnd - outStart }
        var sourceCount: Int64 { sourceEnd - sourceStart }
    }

    /// Lays the segments out in output frames. `sourceOrigin` is the source frame of source
    /// time 0.
    func plan(_ segments: [CompositionTrackSegment], sourceOrigin: Int64) throws -> [Plan] {
        let rate = Int32(format.sampleRate)
        func frames(_ t: Time) throws -> Int64 { try t.rescaled(to: rate, rounding: .toNearestOrAwayFromZero).value }
        var plans: [Plan] = []
        for segment in segments {
            let outStart = try frames(segment.target.start), outEnd = try frames(segment.target.end)
            guard outEnd > outStart else { continue }
            guard let source = segment.source, let segmentRate = segment.rate else {
                plans.append(Plan(kind: .gap, outStart: outStart, outEnd: outEnd, sourceStart: 0, sourceEnd: 0, rate: nil))
                continue
            }
            let kind: Kind
            if segmentRate == .one && settings.semitones == 0 { kind = .copy }
            else if settings.algorithm == .varispeed { kind = .resample }
            else { kind = .stretch }
            plans.append(Plan(kind: kind, outStart: outStart, outEnd: outEnd,
                              sourceStart: try frames(source.start) + sourceOrigin,
                              sourceEnd: try frames(source.end) + sourceOrigin, rate: segmentRate))
        }
        // Each join fades over the same width from both sides, never more than half of either
        // neighbour, so the ramps inside one segment never overlap.
        for i in plans.indices.dropLast() {
            let h = Int(min(Int64(crossfadeHalfWidth), plans[i].outCount / 2, plans[i + 1].outCount / 2))
            plans[i].fadeOut = h
            plans[i + 1].fadeIn = h
        }
        return plans
    }

    /// Renders `segments` (a composition track's, tiling its timeline from 0) reading `source`,
    /// and returns the number of frames written to `sink`. `progress` receives the fraction done.
    @discardableResult
    public func render(_ segments: [CompositionTrackSegment], from source: AudioSource, sourceOrigin: Int64 = 0,
                       to sink: AudioSink, progress: ((Double) throws -> Void)? = nil) throws -> Int64 {
        guard source.format == format else {
            throw TimePitchError.unsupportedFormat("the source is \(source.format.sampleRate) Hz × \(source.format.channels) but the renderer expects \(format.sampleRate) Hz × \(format.channels)")
        }
        let plans = try plan(segments, sourceOrigin: sourceOrigin)
        guard let total = plans.last?.outEnd else { return 0 }
        var mixer = Mixer(channels: format.channels)
        for plan in plans {
            let emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void = { block, count, position in
                mixer.add(block, count: count, at: position, plan: plan)
                // Everything before this segment's closing fade is final once written.
                try mixer.flush(upTo: min(position + Int64(count), plan.outEnd - Int64(plan.fadeOut)), into: sink)
                try progress?(Double(mixer.flushed) / Double(total))
            }
            switch plan.kind {
            case .gap: break
            case .copy: try copy(plan, from: source, emit: emit)
            case .stretch: try stretch(plan, from: source, emit: emit)
            case .resample: try resample(plan, from: source, emit: emit)
            }
            try mixer.flush(upTo: plan.outEnd - Int64(plan.fadeOut), into: sink)
        }
        try mixer.flush(upTo: total, into: sink)
        try progress?(1)
        return mixer.flushed
    }

    // MARK: Segment kinds

    private func copy(_ plan: Plan, from source: AudioSource, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        var buffer = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var position = plan.outStart - Int64(plan.fadeIn)
        let end = plan.outEnd + Int64(plan.fadeOut)
        while position < end {
            let count = Int(min(Int64(blockSize), end - position))
            try source.read(at: plan.sourceStart + (position - plan.outStart), count: count, into: &buffer)
            try emit(buffer, count, position)
            position += Int64(count)
        }
    }

    /// The source frames a stretched or resampled segment reads, with context on both sides,
    /// and the output position of the first frame it produces. The context covers the fade
    /// plus the engine's warm-up: at least ``contextFrames`` of input, and of output up to 8
    /// times that when slowing down (R2 needs about 4096 output frames to settle at 4x slow).
    private func context(_ plan: Plan, ratio: Double) -> (first: Int64, count: Int, outputOrigin: Int64) {
        let warmUp = Double(contextFrames) * min(1, 4 / ratio)
        let before = Int64((Double(plan.fadeIn) / ratio + warmUp).rounded(.up))
        let after = Int64((Double(plan.fadeOut) / ratio + warmUp).rounded(.up))
        let first = plan.sourceStart - before
        let origin = plan.outStart - Int64((Double(before) * ratio).rounded())
        return (first, Int(plan.sourceCount + before + after), origin)
    }

    private func stretch(_ plan: Plan, from source: AudioSource, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        let ratio = Double(plan.outCount) / Double(plan.sourceCount)
        let (first, count, origin) = context(plan, ratio: ratio)
        let stretcher = try Stretcher(sampleRate: format.sampleRate, channels: format.channels, algorithm: settings.algorithm,
                                      mode: .offline, timeRatio: ratio, pitchScale: settings.pitchScale)
        stretcher.setExpectedInputDuration(count)
        stretcher.setMaxProcessSize(blockSize)
        var input = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var output = input
        // R2's transient detector mistakes the rounding noise of mathematically clean signals
        // (synthesised tones, digital silence) for hard peaks and drifts the pitch by ~2%.
        // Dither at -120 dBFS, far below any real recording's noise floor, prevents that. The
        // same seed on both passes keeps study and process input identical.
        let dithered = settings.algorithm == .timeDomain && ditherTimeDomainInput
        var dither = Dither()
        // R2 computes its stretch profile from a study pass over the same input. R3 does not use
        // one: its output is bit-identical without it, so the input is read only once.
        if settings.algorithm == .timeDomain {
            var offset = 0
            while offset < count {
                let n = min(blockSize, count - offset)
                try source.read(at: first + Int64(offset), count: n, into: &input)
                if dithered { dither.add(to: &input, count: n) }
                stretcher.study(input, count: n, final: offset + n == count)
                offset += n
            }
            dither = Dither()
        }
        // Rubber Band drops output that overflows its buffer within one process call (4096
        // frames in at time ratio 32 lost half the output), so each call gets only as much input
        // as makes about one block of output, and the output is drained after every call.
        let chunk = max(16, min(blockSize, Int(Double(blockSize) / max(1, ratio))))
        let wantedEnd = plan.outEnd + Int64(plan.fadeOut)
        var produced: Int64 = 0
        func drain() throws -> Bool {
            while true {
                let available = stretcher.available
                if available < 0 { return true }
                if available == 0 { return false }
                let got = stretcher.retrieve(into: &output, count: min(available, blockSize))
                try deliver(output, count: got, at: origin + produced, plan: plan, emit: emit)
                produced += Int64(got)
            }
        }
        var offset = 0
        while offset < count {
            let n = min(chunk, count - offset)
            try source.read(at: first + Int64(offset), count: n, into: &input)
            if dithered { dither.add(to: &input, count: n) }
            stretcher.process(input, count: n, final: offset + n == count)
            offset += n
            _ = try drain()
            if origin + produced >= wantedEnd { return }
        }
        // Rubber Band can hold back output after the final block; keep asking until it says done.
        var idle = 0
        while !(try drain()) && origin + produced < wantedEnd {
            idle += 1
            if idle > 10_000 { break }
            usleep(100)
        }
    }

    private func resample(_ plan: Plan, from source: AudioSource, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        let ratio = Double(plan.outCount) / Double(plan.sourceCount)
        let (first, count, origin) = context(plan, ratio: ratio)
        let resampler = try Resampler(channels: format.channels, rate: plan.rate!, sampleRate: format.sampleRate)
        var input = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var produced: Int64 = 0
        var offset = 0
        let wantedEnd = plan.outEnd + Int64(plan.fadeOut)
        while offset < count || offset == count {
            let n = min(blockSize, count - offset)
            if n > 0 { try source.read(at: first + Int64(offset), count: n, into: &input) }
            let (output, got) = try resampler.convert(input, count: n, flush: n == 0)
            try deliver(output, count: got, at: origin + produced, plan: plan, emit: emit)
            produced += Int64(got)
            if n == 0 || origin + produced >= wantedEnd { break }
            offset += n
        }
    }

    /// Passes on the part of a block of output that falls inside the segment and its fades.
    private func deliver(_ block: [[Float]], count: Int, at position: Int64, plan: Plan,
                         emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        let lower = plan.outStart - Int64(plan.fadeIn), upper = plan.outEnd + Int64(plan.fadeOut)
        let from = max(position, lower), to = min(position + Int64(count), upper)
        guard to > from else { return }
        if from > position {
            // Before the segment's fade-in: only at its start, where the mixer may not have
            // flushed that far yet, so drop it explicitly.
            let skip = Int(from - position), n = Int(to - from)
            try emit(block.map { Array($0[skip..<(skip + n)]) }, n, from)
            return
        }
        // The mixer ignores frames before what it has flushed; trimming the tail is all that
        // is left, and that only at a segment's very end.
        if to == position + Int64(count) {
            try emit(block, count, position)
        } else {
            try emit(block, Int(to - position), position)
        }
    }
}

/// Triangular dither at about -120 dBFS, cycled from a fixed table, so it is repeatable and
/// costs one add per sample.
struct Dither {
    private static let table: [Float] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Float {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state >> 40) / Float(1 << 24) - 0.5
        }
        return (0..<8191).map { _ in 1e-6 * (next() + next()) }
    }()
    private var index = 0

    mutating func add(to buffer: inout [[Float]], count: Int) {
        Dither.table.withUnsafeBufferPointer { noise in
            for c in buffer.indices {
                var k = index
                buffer[c].withUnsafeMutableBufferPointer { samples in
                    for i in 0..<count {
                        samples[i] += noise[k]
                        k += 1
                        if k == noise.count { k = 0 }
                    }
                }
            }
        }
        index = (index + count) % Dither.table.count
    }
}

/// Sums segments' weighted output into a window of the timeline and hands finished frames to
/// the sink in order.
struct Mixer {
    let channels: Int
    /// Accumulated frames from output position `flushed` on.
    private var pending: [[Float]]
    private(set) var flushed: Int64 = 0

    init(channels: Int) {
        self.channels = channels
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
        let fadeInStart = plan.outStart - Int64(plan.fadeIn), fadeInEnd = plan.outStart + Int64(plan.fadeIn)
        let fadeOutStart = plan.outEnd - Int64(plan.fadeOut), fadeOutEnd = plan.outEnd + Int64(plan.fadeOut)
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
                            weight = Mixer.ramp(p - fadeInStart, width: 2 * plan.fadeIn)
                        } else if p >= fadeOutStart {
                            weight = 1 - Mixer.ramp(p - fadeOutStart, width: 2 * plan.fadeOut)
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
