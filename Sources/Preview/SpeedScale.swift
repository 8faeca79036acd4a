public import Composition
import Foundation

/// Where a playback rate sits between the slowest and the fastest rate of a timeline, on a log
/// scale: the model of `info`'s speed graph and of the preview's timeline strip, so both draw a
/// rate at the same height.
///
/// ```
///   slowest 1/4        1x         fastest 4x
///   0.0 ─────────────── 0.5 ─────────────── 1.0      level = log2(r / slowest) / log2(fastest / slowest)
/// ```
///
/// When every segment plays at one rate, that rate is at the top (1). Gaps and holds have no
/// rate and no level.
public struct SpeedScale: Sendable, Equatable {
    public let slowest: Rational
    public let fastest: Rational

    /// The scale of `segments`' rates; nil when none has a rate (only gaps and holds).
    public init?(segments: [CompositionTrackSegment]) {
        let rates = segments.compactMap(\.rate)
        guard let slowest = rates.min(), let fastest = rates.max() else { return nil }
        self.slowest = slowest
        self.fastest = fastest
    }

    /// `rate`'s height, from 0 (the slowest) to 1 (the fastest); 1 when they are the same.
    public func level(of rate: Rational) -> Double {
        let lo = log2(slowest.doubleValue), hi = log2(fastest.doubleValue)
        guard hi > lo else { return 1 }
        return min(1, max(0, (log2(rate.doubleValue) - lo) / (hi - lo)))
    }
}
