import Foundation

/// The rates slowpoke's audio and video pipelines support, as AVAudioTimePitchAlgorithm does:
/// 1/32x to 32x.
public enum PlaybackRate {
    public static let minimum = try! Rational(1, 32)
    public static let maximum = try! Rational(32)

    /// Throws a message a user can act on when `rate` is not in `[1/32, 32]`.
    public static func validate(_ rate: Rational) throws(CompositionError) {
        if rate.isZero {
            throw .rateOutOfRange("rate 0 would stop time; use a rate from 0.03125 (slowest) to 32 (fastest)")
        }
        if rate.isNegative {
            throw .rateOutOfRange("rate \(rate.readable) is negative; use a rate from 0.03125 to 32, and reverse the range to play it backwards")
        }
        if rate < minimum || rate > maximum {
            throw .rateOutOfRange("rate \(rate.readable) is outside the supported 0.03125 to 32")
        }
    }
}
