import Composition
import Foundation

/// Time and pitch for live playback: the rate, the pitch shift and the algorithm can change
/// between any two calls, and the change is heard within the engine's latency (tens of ms).
///
/// Output is pulled: ``render(_:input:)`` asks `input` for as many source frames as it needs.
/// ``sourcePosition`` tells which source frame the next output frame plays, so a player can
/// show the matching video frame; ``latency`` is how far the engine's output trails its input.
public final class RealtimeTimePitch {
    public let format: AudioFormat
    public private(set) var algorithm: TimePitchAlgorithm
    public private(set) var rate: Double
    public private(set) var semitones: Double

    private var engine: Engine
    /// Rendered but not yet returned output.
    private var fifo: [[Float]]
    /// NaN and infinite input samples, replaced with silence (see ``NonFiniteSamples``).
    private var nonFinite = NonFiniteSamples()
    /// Source frame (fractional) of the next frame returned.
    private var fifoSourceStart: Double = 0
    /// Source frames handed to the engine so far.
    private var consumed: Double = 0
    /// Output frames returned since the engine started.
    private var returned = 0
    /// Rate changes, by the output frame at which they were made; a change is heard one
    /// engine latency later, and the position integrates the rate that is heard.
    private var rateChanges: [(frame: Int, rate: Double)] = []

    public init(format: AudioFormat, algorithm: TimePitchAlgorithm = .timeDomain, rate: Double = 1, semitones: Double = 0) throws {
        try Self.validate(rate: rate)
        _ = try TimePitchSettings(algorithm: algorithm, semitones: semitones)
        self.format = format
        self.algorithm = algorithm
        self.rate = rate
        self.semitones = semitones
        self.engine = try Self.makeEngine(format: format, algorithm: algorithm, rate: rate, semitones: semitones)
        self.fifo = [[Float]](repeating: [], count: format.channels)
        self.rateChanges = [(0, rate)]
    }

    static func validate(rate: Double) throws {
        guard rate.isFinite, rate >= PlaybackRate.minimum.doubleValue, rate <= PlaybackRate.maximum.doubleValue else {
            throw TimePitchError.rateOutOfRange("rate \(rate) is outside the supported 0.03125 to 32")
        }
    }

    private static func makeEngine(format: AudioFormat, algorithm: TimePitchAlgorithm, rate: Double, semitones: Double) throws -> Engine {
        switch algorithm {
        case .varispeed: return SincVarispeed(channels: format.channels, rate: rate)
        case .spectral, .timeDomain:
            return try RubberBandEngine(format: format, algorithm: algorithm, rate: rate, pitchScale: pow(2, semitones / 12))
        }
    }

    /// How far output trails input, in seconds of output.
    public var latency: Double { Double(engine.latencyFrames) / Double(format.sampleRate) }

    /// The source frame that the next output frame plays.
    public var sourcePosition: Double { fifoSourceStart }

    public func setRate(_ newRate: Double) throws {
        try Self.validate(rate: newRate)
        rateChanges.append((returned + fifo[0].count, newRate))
        rate = newRate
        engine.setRate(newRate)
    }

    public func setSemitones(_ n: Double) throws {
        _ = try TimePitchSettings(algorithm: algorithm, semitones: n)
        semitones = n
        engine.setPitchScale(pow(2, n / 12))
    }

    /// Switches engines. Semitones reset to 0 when switching to varispeed. The new engine starts
    /// where the old one's output had got to.
    public func setAlgorithm(_ newAlgorithm: TimePitchAlgorithm) throws {
        guard newAlgorithm != algorithm else { return }
        if newAlgorithm == .varispeed { semitones = 0 }
        algorithm = newAlgorithm
        // Continue from what is being heard: discard queued output and read on from there
        // (`render` tells `input` where to read from).
        try reset(at: fifoSourceStart)
    }

    /// Starts again at source frame `position` (after a seek), dropping everything queued.
    public func reset(at position: Double) throws {
        engine = try Self.makeEngine(format: format, algorithm: algorithm, rate: rate, semitones: semitones)
        consumed = position
        fifoSourceStart = position
        returned = 0
        rateChanges = [(0, rate)]
        for c in fifo.indices { fifo[c].removeAll() }
    }

    /// Returns `count` output frames. `input(from, n)` must return `n` source frames starting
    /// at source frame `from` (silence past the end).
    public func render(_ count: Int, input: (_ from: Int64, _ count: Int) throws -> [[Float]]) throws -> [[Float]] {
        while fifo[0].count < count {
            let want = engine.framesWanted
            let start = Int64(consumed.rounded())
            var block = try input(start, want)
            // NaN or infinity would stay in Rubber Band's state for the rest of the preview.
            nonFinite.scrub(&block, count: want, at: start)
            consumed = Double(start + Int64(want))
            let out = engine.process(block, count: want)
            for c in fifo.indices { fifo[c].append(contentsOf: out[c]) }
        }
        let result = fifo.map { Array($0[0..<count]) }
        for c in fifo.indices { fifo[c].removeFirst(count) }
        // With its start delay trimmed, the engine's output frame j plays source frame j × rate.
        // Advance the position by the rate heard over each returned frame: a change made at
        // output frame f is heard from f + latency on.
        let lag = engine.latencyFrames
        var frame = returned
        let end = returned + count
        while frame < end {
            let heardAt = frame - lag
            let current = rateChanges.last { $0.frame <= heardAt }?.rate ?? rateChanges[0].rate
            let next = rateChanges.first { $0.frame > heardAt }.map { $0.frame + lag } ?? end
            let stop = min(end, max(next, frame + 1))
            fifoSourceStart += Double(stop - frame) * current
            frame = stop
        }
        returned = end
        // Forget changes that everything returned has already heard.
        while rateChanges.count > 1 && rateChanges[1].frame + lag <= returned { rateChanges.removeFirst() }
        return result
    }
}

/// One live engine: takes source frames, returns what output they produce.
protocol Engine: AnyObject {
    var framesWanted: Int { get }
    /// Output frames by which the engine trails its input.
    var latencyFrames: Int { get }
    func setRate(_ rate: Double)
    func setPitchScale(_ scale: Double)
    func process(_ input: [[Float]], count: Int) -> [[Float]]
}

/// Rubber Band in real-time mode, padded at the start and with its start delay trimmed so that
/// output lines up with input.
final class RubberBandEngine: Engine {
    private let stretcher: Stretcher
    private let channels: Int
    private var toDiscard: Int
    private var scratch: [[Float]]
    /// R2 needs the same sub-audible dither live as offline (see `TimelineRenderer`).
    private var dither: Dither?

    init(format: AudioFormat, algorithm: TimePitchAlgorithm, rate: Double, pitchScale: Double) throws {
        dither = algorithm == .timeDomain ? Dither() : nil
        stretcher = try Stretcher(sampleRate: format.sampleRate, channels: format.channels, algorithm: algorithm,
                                  mode: .realTime, timeRatio: 1 / rate, pitchScale: pitchScale)
        channels = format.channels
        scratch = [[Float]](repeating: [Float](repeating: 0, count: 4096), count: channels)
        stretcher.setMaxProcessSize(4096)
        let pad = stretcher.preferredStartPad
        toDiscard = stretcher.startDelay
        if pad > 0 { stretcher.process([[Float]](repeating: [Float](repeating: 0, count: pad), count: channels), count: pad, final: false) }
    }

    var framesWanted: Int { min(4096, max(64, stretcher.samplesRequired)) }
    var latencyFrames: Int { stretcher.startDelay }

    func setRate(_ rate: Double) { stretcher.timeRatio = 1 / rate }

    func setPitchScale(_ scale: Double) { stretcher.pitchScale = scale }

    func process(_ input: [[Float]], count: Int) -> [[Float]] {
        if dither != nil {
            var noisy = input
            dither!.add(to: &noisy, count: count)
            stretcher.process(noisy, count: count, final: false)
        } else {
            stretcher.process(input, count: count, final: false)
        }
        var out = [[Float]](repeating: [], count: channels)
        while stretcher.available > 0 {
            let got = stretcher.retrieve(into: &scratch, count: min(4096, stretcher.available))
            var skip = 0
            if toDiscard > 0 {
                skip = min(toDiscard, got)
                toDiscard -= skip
            }
            for c in 0..<channels { out[c].append(contentsOf: scratch[c][skip..<got]) }
        }
        return out
    }
}

/// Varispeed for live playback: windowed-sinc interpolation at a fractional step equal to the
/// rate, with the cutoff lowered when speeding up so nothing aliases. Rate changes apply at the
/// next output frame.
final class SincVarispeed: Engine {
    private let channels: Int
    private var rate: Double
    /// Source frames not yet passed by the kernel.
    private var history: [[Float]]
    /// Fractional index into `history` of the next output frame.
    private var position: Double
    private var weights: [Float] = []
    static let halfWidth = 8
    /// Silence before the first frame, so the kernel has context from the start.
    private static let lead = halfWidth * 32

    init(channels: Int, rate: Double) {
        self.channels = channels
        self.rate = rate
        history = [[Float]](repeating: [Float](repeating: 0, count: Self.lead), count: channels)
        position = Double(Self.lead)
    }

    var framesWanted: Int { 1024 }
    private var reach: Double { Double(Self.halfWidth) * max(1, rate) }
    var latencyFrames: Int { Int((reach / rate).rounded(.up)) }

    func setRate(_ rate: Double) { self.rate = rate }
    func setPitchScale(_ scale: Double) {}

    func process(_ input: [[Float]], count: Int) -> [[Float]] {
        for c in 0..<channels { history[c].append(contentsOf: input[c][0..<count]) }
        // Speeding up widens the kernel (a lower cutoff), so nothing aliases.
        let stretch = max(1, rate), reach = self.reach
        var out = [[Float]](repeating: [], count: channels)
        let available = Double(history[0].count)
        while position + reach + 1 < available {
            let first = Int((position - reach).rounded(.up)), last = Int((position + reach).rounded(.down))
            weights.removeAll(keepingCapacity: true)
            var total: Float = 0
            for k in first...last {
                let w = Float(Self.kernel((Double(k) - position) / stretch))
                weights.append(w)
                total += w
            }
            for c in 0..<channels {
                var sum: Float = 0
                history[c].withUnsafeBufferPointer { h in
                    for (i, w) in weights.enumerated() { sum += w * h[first + i] }
                }
                out[c].append(total != 0 ? sum / total : 0)
            }
            position += rate
        }
        // Forget what the kernel can no longer reach, in large steps.
        let unreachable = Int((position - reach).rounded(.down)) - 1
        if unreachable > 8192 {
            for c in 0..<channels { history[c].removeFirst(unreachable) }
            position -= Double(unreachable)
        }
        return out
    }

    /// A Blackman-windowed sinc over `[-halfWidth, halfWidth]`.
    static func kernel(_ x: Double) -> Double {
        let n = Double(halfWidth)
        guard abs(x) < n else { return 0 }
        let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
        let t = (x + n) / (2 * n)
        return sinc * (0.42 - 0.5 * cos(2 * Double.pi * t) + 0.08 * cos(4 * Double.pi * t))
    }
}
