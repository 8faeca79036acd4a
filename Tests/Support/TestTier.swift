import Foundation

/// Which tier of the tests is running. `make test` (CI) runs the quick tier: every check, each
/// at a size that fits a two-core machine. `make test-long` (before a release) sets
/// `SLOWPOKE_LONG_TESTS=1`, which adds the stress variants, the long cases and the large seed
/// and fuzz counts.
public enum TestTier {
    /// Whether `SLOWPOKE_LONG_TESTS=1` asks for the long tier.
    public static let isLong = ProcessInfo.processInfo.environment["SLOWPOKE_LONG_TESTS"] == "1"

    /// `quick` in `make test`, `long` in `make test-long`: a number of cases, seeds or runs.
    public static func count(_ quick: Int, long: Int) -> Int { isLong ? long : quick }
}
