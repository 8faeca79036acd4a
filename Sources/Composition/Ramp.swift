import Foundation

/// How a ramp's rate moves from its first rate to its last.
public enum RampEase: String, Sendable, Hashable, Codable, CaseIterable {
    /// The rate changes at a constant pace along the range.
    case linear
    /// Ease-in/ease-out: smoothstep, `3u² − 2u³`, so the rate leaves and reaches its ends gently.
    case smooth

    /// How far along its change the rate is at fraction `u` of the range (0...1).
    func progress(_ u: Double) -> Double {
        switch self {
        case .linear: u
        case .smooth: u * u * (3 - 2 * u)
        }
    }
}

/// A speed ramp: `range` (timeline time, as ``Composition/scaleTimeRange(_:toDuration:)`` takes
/// it) plays at a rate that moves from `from` to `to`, built as `steps` constant-rate steps.
///
///     before:  |  A ============================ B  |          range split in N equal steps
///     after:   |  A =|==|===|====|=====|======| B' |          step i scaled by 1/rateᵢ
///
/// - Step i covers `A + L·i/N ..< A + L·(i+1)/N` of the range before the ramp: exact rationals.
/// - Its factor (new length / old length) is the mean of `1/rate(u)` over the step (exact for
///   `linear`, Simpson's rule for `smooth`), so each step lasts as long as the continuous ramp
///   over it, rounded to a multiple of 1/``factorDenominator``: every step's length then shares
///   one small denominator, the timeline's times stay in a small timescale, and the ramp's
///   length is their exact sum.
/// - That mean is computed with `+ − × ÷` on `Double` only (no `libm`), so every IEEE 754
///   machine computes the same factors and replaying a document's history is reproducible.
///
/// On a range that is already scaled, a ramp multiplies the rates as `scale` does; on an
/// unscaled range, timeline time before the ramp is source time, so `linear` is linear in source
/// time. The continuous length of a linear ramp of source length L is
/// `L · ln(from/to) / (from − to)`; the steps come within `L / 2048` of it (half a factor unit
/// per step, summed) and in practice far closer (see the README for measured figures).
public struct Ramp: Sendable, Hashable {
    public let range: TimeRange
    public let from: Rational
    public let to: Rational
    public let ease: RampEase
    public let steps: Int

    /// Step factors are multiples of 1/1024.
    public static let factorDenominator: Int64 = 1024
    /// Default step length: at most 1/15 s of the range.
    public static let stepsPerSecond: Int64 = 15
    public static let minimumSteps = 4
    public static let maximumSteps = 10_000

    /// A ramp over `range` from rate `from` to rate `to`, with `steps` steps or, when nil, the
    /// default: steps of at most 1/15 s, at least 4. Throws a message a user can act on.
    public init(range: TimeRange, from: Rational, to: Rational, ease: RampEase = .linear, steps: Int? = nil) throws(CompositionError) {
        guard range.start.isNumeric, range.duration.isNumeric, !range.isEmpty else {
            throw .invalidRange("range \(range) is empty; a ramp needs a range that ends after it starts")
        }
        for (name, rate) in [("from", from), ("to", to)] {
            guard rate > .zero, rate >= PlaybackRate.minimum, rate <= PlaybackRate.maximum else {
                throw .rateOutOfRange("--\(name) \(rate.readable) is outside the supported 0.03125 to 32")
            }
        }
        let count: Int
        if let steps { count = steps } else { count = try Self.defaultSteps(for: range.duration) }
        guard (1...Self.maximumSteps).contains(count) else {
            throw .invalidRange("a ramp has 1 to \(Self.maximumSteps) steps, not \(count)")
        }
        self.range = range
        self.from = from
        self.to = to
        self.ease = ease
        self.steps = count
    }

    /// `max(4, ⌈15 · seconds⌉)`: steps of at most 1/15 s.
    public static func defaultSteps(for length: Time) throws(CompositionError) -> Int {
        let seconds = try length.ratio(to: .seconds(1))
        let scaled = Int128(seconds.numerator) * Int128(stepsPerSecond)
        let d = Int128(seconds.denominator)
        let ceiling = (scaled + d - 1) / d
        return Int(min(Int128(maximumSteps), max(Int128(minimumSteps), ceiling)))
    }

    /// The steps' ranges in timeline time before the ramp; they tile `range` exactly.
    public func stepRanges() throws(CompositionError) -> [TimeRange] {
        var bounds: [Time] = [range.start]
        for i in 1..<steps {
            bounds.append(try range.start + range.duration.multiplied(by: Rational(Int64(i), Int64(steps))))
        }
        bounds.append(range.end)
        var ranges: [TimeRange] = []
        for i in 0..<steps { ranges.append(try TimeRange(start: bounds[i], end: bounds[i + 1])) }
        return ranges
    }

    /// Each step's factor, new length over old: `k / 1024`, where `k / 1024` is the step's mean
    /// of `1/rate` rounded to nearest. For `linear` the mean is exact, `ln(ra/rb) / (ra − rb)`
    /// between the rates at the step's ends; for `smooth`, Simpson's rule on 64 pieces of the step.
    public func stepFactors() throws(CompositionError) -> [Rational] {
        let r1 = from.doubleValue, r2 = to.doubleValue
        func rate(_ u: Double) -> Double { r1 + (r2 - r1) * ease.progress(u) }
        let n = Double(steps)
        var factors: [Rational] = []
        for i in 0..<steps {
            let a = Double(i) / n, b = Double(i + 1) / n
            let mean: Double
            switch ease {
            case .linear:
                mean = logarithmicMeanOfInverse(rate(a), rate(b))
            case .smooth:
                let pieces = 64
                var sum = 0.0
                for j in 0...pieces {
                    let weight: Double = (j == 0 || j == pieces) ? 1 : (j % 2 == 1 ? 4 : 2)
                    sum += weight / rate(a + (b - a) * Double(j) / Double(pieces))
                }
                mean = sum / Double(3 * pieces)
            }
            var k = Int64((mean * Double(Self.factorDenominator)).rounded(.toNearestOrAwayFromZero))
            // Rounding never leaves 1/32...32: the bounds are multiples of 1/1024.
            k = min(32 * Self.factorDenominator, max(Self.factorDenominator / 32, k))
            factors.append(try Rational(k, Self.factorDenominator))
        }
        return factors
    }

    /// Each step's playback rate relative to the range before the ramp: `1024 / k`.
    public func stepRates() throws(CompositionError) -> [Rational] {
        var rates: [Rational] = []
        for factor in try stepFactors() { rates.append(try factor.reciprocal) }
        return rates
    }

    /// The ramp's length on the timeline: the exact sum of its steps' lengths.
    public func duration() throws(CompositionError) -> Time {
        var total = Time.zero
        for (range, factor) in zip(try stepRanges(), try stepFactors()) {
            total = try total + range.duration.multiplied(by: factor)
        }
        return total
    }

    /// The continuous ramp's length, for comparison: `∫ L / rate(u) du`, in seconds.
    public func continuousSeconds() -> Double {
        let length = range.duration.seconds
        let r1 = from.doubleValue, r2 = to.doubleValue
        if ease == .linear {
            return length * logarithmicMeanOfInverse(r1, r2)
        }
        // Composite Simpson's rule, fine enough to be exact to display precision.
        let n = 20_000
        var sum = 0.0
        for j in 0...n {
            let u = Double(j) / Double(n)
            let weight: Double = (j == 0 || j == n) ? 1 : (j % 2 == 1 ? 4 : 2)
            sum += weight / (r1 + (r2 - r1) * ease.progress(u))
        }
        return length * sum / Double(3 * n)
    }

    /// Scales every step in one splice per track (``Composition/scaleSteps(_:)``): exactly what
    /// scaling the steps one by one, last to first, gives (each step's range, computed before
    /// the ramp, is still where it was when it is scaled, since scaling a step moves only what
    /// follows it), in time proportional to the steps and the segments under them.
    public func apply(to composition: inout Composition) throws(CompositionError) {
        try checkWithin(composition)
        var steps: [(range: TimeRange, toDuration: Time)] = []
        steps.reserveCapacity(self.steps)
        for (range, factor) in zip(try stepRanges(), try stepFactors()) {
            steps.append((range, try range.duration.multiplied(by: factor)))
        }
        try composition.scaleSteps(steps)
    }

    private func checkWithin(_ composition: Composition) throws(CompositionError) {
        guard range.start >= .zero, range.end <= composition.duration else {
            throw .beyondTimeline("range \(range) goes beyond the end of the timeline (\(composition.duration))")
        }
    }
}

/// The mean of `1/r` over a linear change of `r` from `ra` to `rb`: `ln(ra/rb) / (ra − rb)`
/// (`1/ra` when they are equal). Computed with `+ − × ÷` only, so that it is the same on every
/// IEEE 754 machine whatever its `libm`: a document's ramp replays to the same steps anywhere.
func logarithmicMeanOfInverse(_ ra: Double, _ rb: Double) -> Double {
    let x = ra / rb
    // ln(x) / (ra − rb) = 2·atanh(y) / (ra − rb) with y = (x − 1)/(x + 1) = (ra − rb)/(ra + rb):
    // the series 2·(y + y³/3 + …)/(ra − rb) = 2/(ra + rb)·(1 + y²/3 + y⁴/5 + …) has no
    // cancellation, even when ra ≈ rb. For |y| near 1 (ratios beyond 4), halve x first.
    if x > 4 || x < 0.25 {
        // ln(x) = ln(m) + e·ln 2 with m in [1, 2).
        var m = x, e = 0.0
        while m >= 2 { m /= 2; e += 1 }
        while m < 1 { m *= 2; e -= 1 }
        return (naturalLog(m) + e * naturalLog(2)) / (ra - rb)
    }
    let y = (ra - rb) / (ra + rb), y2 = y * y
    var term = 1.0, sum = 0.0, k = 1.0
    while term / k > 1e-18 { sum += term / k; term *= y2; k += 2 }
    return 2 / (ra + rb) * sum
}

/// ln(m) for m in [1, 2], by the atanh series (|y| ≤ 1/3): basic arithmetic only.
private func naturalLog(_ m: Double) -> Double {
    let y = (m - 1) / (m + 1), y2 = y * y
    var term = y, sum = 0.0, k = 1.0
    while abs(term) / k > 1e-18 { sum += term / k; term *= y2; k += 2 }
    return 2 * sum
}
