public import Composition

/// What happened in a preview session, for the command to report.
public struct PreviewSummary: Sendable {
    /// Edits saved to the document, and undone, in order.
    public var saved: [String] = []
    /// The document's timeline length at the end.
    public var duration: Time = .zero
    /// Whether the session ended because the caller's `interrupted` said so (SIGINT or SIGTERM
    /// in the command line), not by a key or a closed window.
    public var interrupted = false
    /// How long the window took to draw its frames, and the strip's share.
    public var frameTiming = FrameTiming()
    /// Keys, pictures and track switches against the audio device's count of frames taken,
    /// when ``PreviewOptions/clockLog`` asked for them.
    public internal(set) var clock = ClockLog(enabled: false)
    /// What steadying the pictures cost, with `--stabilize`.
    public internal(set) var steadying: SteadyingCost?
}

/// What steadying the pictures cost a preview (`--stabilize`), for the command to report.
public struct SteadyingCost: Sendable {
    /// Source pictures steadied.
    public let pictures: Int
    /// Median milliseconds a picture: decoding, copying and transforming it; the copy and the
    /// transform alone.
    public let medianWhole: Double, medianTransform: Double
    /// Times the transform started again from the first picture (seeks back).
    public let restarts: Int
}
