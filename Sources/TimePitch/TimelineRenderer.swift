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
/// - **Attacks in place.** Slowed stretched segments are split at sharp onsets, so the phase
///   vocoder cannot smear an attack ahead of its time (``splitAtOnsets(_:source:)``).
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
        /// A split at an onset inside a stretched segment (see `splitAtOnsets`): the piece before
        /// it fades out over `fadeOut` frames ending exactly at the onset and reads silence, not
        /// the onset, past its end; the piece after starts at full level exactly at the onset.
        var endsAtOnset = false
        /// The source frame from which this piece reads silence instead of the source: the onset
        /// that starts the next piece or follows the segment, kept out of its context.
        var silentFrom: Int64?

        var outCount: Int64 { outEnd - outStart }
        var sourceCount: Int64 { sourceEnd - sourceStart }
        /// Output frames where the opening fade rises from 0 to 1, and the closing one falls.
        var fadeInStart: Int64 { outStart - Int64(fadeIn) }
        var fadeInEnd: Int64 { outStart + Int64(fadeIn) }
        var fadeOutStart: Int64 { outEnd - Int64(fadeOut) }
        var fadeOutEnd: Int64 { endsAtOnset ? outEnd : outEnd + Int64(fadeOut) }
        var fadeOutWidth: Int { endsAtOnset ? fadeOut : 2 * fadeOut }
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
        let plans = try splitAtOnsets(plan(segments, sourceOrigin: sourceOrigin), source: source)
        guard let total = plans.last?.outEnd else { return 0 }
        var mixer = Mixer(channels: format.channels)
        for plan in plans {
            let emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void = { block, count, position in
                mixer.add(block, count: count, at: position, plan: plan)
                // Everything before this segment's closing fade is final once written.
                try mixer.flush(upTo: min(position + Int64(count), plan.fadeOutStart), into: sink)
                try progress?(Double(mixer.flushed) / Double(total))
            }
            switch plan.kind {
            case .gap: break
            case .copy: try copy(plan, from: source, emit: emit)
            case .stretch: try stretch(plan, from: source, emit: emit)
            case .resample: try resample(plan, from: source, emit: emit)
            }
            try mixer.flush(upTo: plan.fadeOutStart, into: sink)
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
        let after = Int64(((plan.endsAtOnset ? 0 : Double(plan.fadeOut)) / ratio + warmUp).rounded(.up))
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
                try read(plan, from: source, at: first + Int64(offset), count: n, into: &input)
                if dithered { dither.add(to: &input, count: n) }
                stretcher.study(input, count: n, final: offset + n == count)
                offset += n
            }
            dither = Dither()
        }
        // Rubber Band drops output that overflows its buffer within one process call (4096
        // frames in at time ratio 32 lost half the output), so each call gets only as much input
        // as makes about one block of output, and the output is drained after every call.
        // R2 runs a worker thread per channel, fed by this one: 1024 frames per call (as the
        // rubberband CLI feeds it) keep the workers busy, where 4096 left them waiting (1.5-1.7
        // cores in use instead of 1.7-1.75, measured). R3 works on this thread, where larger
        // calls cost less per frame. The output is the same either way.
        let feed = settings.algorithm == .timeDomain ? min(1024, blockSize) : blockSize
        let chunk = max(16, min(feed, Int(Double(blockSize) / max(1, ratio))))
        let wantedEnd = plan.fadeOutEnd
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
            try read(plan, from: source, at: first + Int64(offset), count: n, into: &input)
            if dithered { dither.add(to: &input, count: n) }
            stretcher.process(input, count: n, final: offset + n == count)
            offset += n
            _ = try drain()
            if origin + produced >= wantedEnd { return }
        }
        // Rubber Band can hold back output after the final block; keep asking until it says done.
        // Ten seconds without a single new frame means the engine is stuck: that is an error,
        // never a silently short output.
        var idle = 0, before = produced
        while !(try drain()) && origin + produced < wantedEnd {
            if produced != before { idle = 0; before = produced }
            idle += 1
            if idle > 100_000 {
                throw TimePitchError.engine("Rubber Band stopped producing audio \(origin + produced - plan.outStart) frames into a segment of \(plan.outCount); the output would be short")
            }
            usleep(100)
        }
    }

    /// Reads source frames for `plan`; past the end of a piece that ends at an onset, silence,
    /// so that the onset cannot leak into it.
    private func read(_ plan: Plan, from source: AudioSource, at position: Int64, count: Int, into buffer: inout [[Float]]) throws {
        try source.read(at: position, count: count, into: &buffer)
        guard let silent = plan.silentFrom, position + Int64(count) > silent else { return }
        let from = Int(max(0, silent - position))
        for c in buffer.indices { for i in from..<count { buffer[c][i] = 0 } }
    }

    // MARK: Onsets

    /// Whether stretched segments are split at sharp onsets (see ``splitAtOnsets``).
    public var splitsAtOnsets = true

    /// Splits slowed-down stretched segments at sharp onsets. A phase vocoder smears an attack
    /// backwards by up to half its analysis window times the time ratio: Rubber Band R3 starts
    /// a beep slowed 4x about 28 ms early, so a drum hit or a beep would sound before the frame
    /// that shows it. Each onset instead starts a new piece, rendered with the audio before it as
    /// warm-up but heard only from the onset on, while the piece before it reads silence past
    /// the onset and fades out over the last millisecond. The attack lands on its sample.
    func splitAtOnsets(_ plans: [Plan], source: AudioSource) throws -> [Plan] {
        guard splitsAtOnsets else { return plans }
        var result: [Plan] = []
        for plan in plans {
            guard plan.kind == .stretch, plan.outCount > plan.sourceCount, let rate = plan.rate else {
                result.append(plan)
                continue
            }
            // Onsets inside the segment split it; the first one in the audio read past its end
            // (the next segment's attack) is kept out of its context.
            let ratio = Double(plan.outCount) / Double(plan.sourceCount)
            let context = context(plan, ratio: ratio)
            let margin = Int64(format.sampleRate / 20), shortest = Int64(format.sampleRate / 100)
            let onsets = try findOnsets(from: plan.sourceStart + margin, to: context.first + Int64(context.count), source: source)
            var piece = plan
            piece.silentFrom = onsets.first { $0 >= plan.sourceEnd }
            for onset in onsets where onset < plan.sourceEnd - shortest {
                // The onset's exact output position, from the segment's exact rate.
                let offset = Int128(onset - plan.sourceStart) * Int128(rate.denominator)
                let out = plan.outStart + Int64((offset + Int128(rate.numerator) / 2) / Int128(rate.numerator))
                var before = Plan(kind: .stretch, outStart: piece.outStart, outEnd: out, sourceStart: piece.sourceStart,
                                  sourceEnd: onset, rate: rate)
                before.fadeIn = piece.fadeIn
                before.fadeOut = max(1, format.sampleRate / 1000)
                before.endsAtOnset = true
                before.silentFrom = onset
                result.append(before)
                piece = Plan(kind: .stretch, outStart: out, outEnd: plan.outEnd, sourceStart: onset,
                             sourceEnd: plan.sourceEnd, rate: rate)
                piece.fadeOut = plan.fadeOut
                piece.silentFrom = onsets.first { $0 >= plan.sourceEnd }
            }
            result.append(piece)
        }
        return result
    }

    /// Source frames in `[from, to)` where the level jumps by 20 dB or more within 5 ms (over
    /// the 20 ms before) to above -40 dBFS, at least 50 ms apart.
    func findOnsets(from: Int64, to last: Int64, source: AudioSource) throws -> [Int64] {
        let hop = max(1, format.sampleRate / 200)
        let margin = Int64(format.sampleRate / 20)
        // Rising energy needs 20 ms of history: read from 20 ms before.
        let history = 4
        let first = from - Int64(history * hop)
        var onsets: [Int64] = []
        var energies: [Float] = []
        var block = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var position = first
        var lastOnset: Int64?
        let floor: Float = 1e-4 // -40 dBFS, as mean square
        while position + Int64(hop) <= last {
            let hops = min(blockSize / hop, Int((last - position) / Int64(hop)))
            guard hops > 0 else { break }
            try source.read(at: position, count: hops * hop, into: &block)
            for h in 0..<hops {
                var energy: Float = 0
                for c in 0..<format.channels {
                    for i in (h * hop)..<((h + 1) * hop) { energy += block[c][i] * block[c][i] }
                }
                energy /= Float(hop * format.channels)
                let start = position + Int64(h * hop)
                if energies.count >= history, energy > floor, lastOnset.map({ start - $0 >= margin }) ?? true,
                   energy > 100 * max(energies.suffix(history).max()!, 1e-9) {
                    // The onset is the first sample clearly above the level before it.
                    let before = energies.suffix(history).max()!
                    let threshold = max(4 * before.squareRoot(), 0.003)
                    var at = start
                    outer: for i in (h * hop)..<((h + 1) * hop) {
                        for c in 0..<format.channels where abs(block[c][i]) > threshold { at = start + Int64(i - h * hop); break outer }
                    }
                    onsets.append(at)
                    lastOnset = at
                }
                energies.append(energy)
                if energies.count > 64 { energies.removeFirst(energies.count - history) }
            }
            position += Int64(hops * hop)
        }
        return onsets
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
        let lower = plan.fadeInStart, upper = plan.fadeOutEnd
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
                            weight = Mixer.ramp(p - fadeInStart, width: 2 * plan.fadeIn)
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
