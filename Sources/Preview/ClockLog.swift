/// The preview's own account of its timing, kept when ``PreviewOptions/clockLog`` asks for it:
/// for every key it acted on, every picture it presented and every audio track it switched to,
/// how many audio frames the device had taken from the queue at that moment, and, with SDL's
/// disk driver, how many its file held. The file is what a listener would have heard (silence
/// while paused and where the queue ran dry included), so a measurement reads what was heard
/// at each event from the file itself, with no wall clock between the two: a loaded machine
/// delays events, but cannot move them against the audio.
public struct ClockLog: Sendable {
    public enum Kind: String, Sendable {
        /// A key (or the mouse) acted on; `what` names it.
        case key
        /// A picture presented; `source` is its presentation time in the movie.
        case frame
        /// The audio track `t` asked for began to play.
        case audio
        /// A turn of the player's loop without a window (where no pictures mark the time).
        case tick
    }

    public struct Event: Sendable {
        public let kind: Kind
        public let what: String
        /// Audio frames the device had taken from the queue at the event (the player's clock
        /// runs on these), or -1 without audio.
        public let deviceFrame: Int64
        /// Frames in the disk driver's file at the event, or -1 for another driver.
        public let written: Int64
        /// The player's clock: the composition time it took as being heard, in seconds.
        public let clock: Double
        /// For a frame: the shown picture's time in the source movie, in seconds.
        public let source: Double?
    }

    public private(set) var events: [Event] = []
    let enabled: Bool

    init(enabled: Bool) { self.enabled = enabled }

    mutating func add(_ kind: Kind, _ what: String = "", feeder: AudioFeeder?, clock: Double, source: Double? = nil) {
        guard enabled, events.count < 1_000_000 else { return }
        events.append(Event(kind: kind, what: what, deviceFrame: feeder?.deviceFrames ?? -1, written: feeder?.writtenFrames ?? -1,
                            clock: clock, source: source))
    }

    /// One line an event: kind, what (`-` for none), device frame, frames written, clock and
    /// source seconds (`-` for none), separated by spaces.
    public var lines: [String] {
        events.map { e in
            "\(e.kind.rawValue) \(e.what.isEmpty ? "-" : e.what) \(e.deviceFrame) \(e.written) \(e.clock) \(e.source.map { "\($0)" } ?? "-")"
        }
    }
}
