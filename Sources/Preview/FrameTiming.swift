/// The preview's own frame timing: how long each drawn frame took to present (picture,
/// overlays and `SDL_RenderPresent`), and how much of that the timeline strip's drawing calls
/// took.
public struct FrameTiming: Sendable, Equatable {
    /// Nanoseconds per frame, in order (the first 100 000 frames).
    public private(set) var present: [UInt64] = []
    public private(set) var strip: [UInt64] = []

    public init() {}

    mutating func add(present: UInt64, strip: UInt64) {
        guard self.present.count < 100_000 else { return }
        self.present.append(present)
        self.strip.append(strip)
    }

    public var frames: Int { present.count }

    /// Milliseconds a frame: the median (steady against a loaded machine's stalls), the mean
    /// and the slowest.
    public static func median(_ values: [UInt64]) -> Double {
        guard !values.isEmpty else { return 0 }
        return Double(values.sorted()[values.count / 2]) / 1e6
    }
    public static func mean(_ values: [UInt64]) -> Double {
        values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count) / 1e6
    }
    public static func slowest(_ values: [UInt64]) -> Double { Double(values.max() ?? 0) / 1e6 }
}
