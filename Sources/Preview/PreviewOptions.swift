public import Composition
public import Foundation
public import TimePitch
public import Media

/// How to start a preview.
public struct PreviewOptions: Sendable {
    /// The project document whose timeline plays, and where edits are saved.
    public var document: URL
    public var rate: Rational
    public var algorithm: TimePitchAlgorithm
    public var semitones: Int
    /// Composition time to start at.
    public var start: Time
    /// False for audio only, with no window (keys then come from ``Player/run(keys:status:message:)``).
    public var video: Bool
    /// Start playing at once rather than paused.
    public var autoplay: Bool
    /// Draw the timeline strip (off only to measure what drawing it costs a frame).
    public var strip = true
    /// Keep the ``ClockLog`` (for measuring the preview's timing in its own clock).
    public var clockLog = false
    /// Seconds the picture is shown behind the audio: 0, but for showing that the A/V
    /// measurement on the ``ClockLog`` sees a late picture.
    public var videoLag = 0.0
    /// Steady the pictures (`--stabilize`) with the analysis ``StabilizationAnalysis/prepare(_:movie:progress:)`` made ready.
    public var stabilization: Stabilization?
    package var stabilizationAnalysis: StabilizationAnalysis.Prepared?
    /// A folder to write each picture shown to, as 8-bit grey (for tests that measure the
    /// motion on screen).
    public var pictureDump: URL?

    public init(document: URL, rate: Rational = .one, algorithm: TimePitchAlgorithm = .timeDomain, semitones: Int = 0,
                start: Time = .zero, video: Bool = true, autoplay: Bool = false) {
        self.document = document
        self.rate = rate
        self.algorithm = algorithm
        self.semitones = semitones
        self.start = start
        self.video = video
        self.autoplay = autoplay
    }
}
