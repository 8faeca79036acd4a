/// The preview's own frame timing: how long each drawn frame took to present (picture,
/// overlays and `SDL_RenderPresent`), and how much of that the timeline strip's drawing calls
/// took.
public struct FrameTiming: Sendable, Equatable {
    public private(set) var frames = 0
    public private(set) var presentNanoseconds: UInt64 = 0
    public private(set) var stripNanoseconds: UInt64 = 0
    public private(set) var slowestStripNanoseconds: UInt64 = 0

    public init() {}

    mutating func add(present: UInt64, strip: UInt64) {
        frames += 1
        presentNanoseconds += present
        stripNanoseconds += strip
        slowestStripNanoseconds = max(slowestStripNanoseconds, strip)
    }

    /// Milliseconds a frame, on average.
    public var meanPresentMilliseconds: Double { frames == 0 ? 0 : Double(presentNanoseconds) / Double(frames) / 1e6 }
    public var meanStripMilliseconds: Double { frames == 0 ? 0 : Double(stripNanoseconds) / Double(frames) / 1e6 }
    public var slowestStripMilliseconds: Double { Double(slowestStripNanoseconds) / 1e6 }
}
