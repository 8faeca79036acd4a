import Composition

/// The preview's clock: composition times as the player reads them from the audio device or
/// the wall clock, on a 1/48000 s grid (one tick is one sample at 48 kHz).
enum PlaybackClock {
    static let ticksPerSecond: Int32 = 48_000
    /// One tick: the smallest step the player distinguishes.
    static let tick = Time(value: 1, timescale: ticksPerSecond)

    /// `seconds` (negative clamps to 0) on the clock's grid.
    static func time(seconds: Double) -> Time {
        Time(value: Int64((max(0, seconds) * Double(ticksPerSecond)).rounded()), timescale: ticksPerSecond)
    }
}
