public import Composition

/// The rates ← and → step through.
public enum RateLadder {
    public static let rates: [Rational] = [
        try! Rational(1, 32), try! Rational(1, 16), try! Rational(1, 8), try! Rational(1, 4), try! Rational(1, 2),
        try! Rational(3, 4), .one, try! Rational(5, 4), try! Rational(3, 2), try! Rational(2), try! Rational(4),
        try! Rational(8), try! Rational(16), try! Rational(32),
    ]

    /// The next rate up (`direction` 1) or down (-1) from `rate`, which need not be on the ladder;
    /// the same rate at either end.
    public static func step(from rate: Rational, _ direction: Int) -> Rational {
        if direction > 0 { return rates.first { $0.doubleValue > rate.doubleValue } ?? rate }
        return rates.last { $0.doubleValue < rate.doubleValue } ?? rate
    }
}
