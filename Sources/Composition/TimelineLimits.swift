/// How long things may be. An edit that passes them is refused, whether typed or imported
/// (OTIO, EDL, recipes): a gap of 10^9 s would otherwise make an export write black frames for
/// decades with its progress stuck at 0. Generous for real work: a day-long recording slowed
/// 32x fits.
public enum TimelineLimits {
    /// A gap or a freeze frame: at most 24 hours.
    public static let maximumPause = Time(value: 86_400, timescale: 1)
    /// The whole timeline: at most 32 days (768 hours), a day slowed to 1/32.
    public static let maximumDuration = Time(value: 32 * 86_400, timescale: 1)

    /// Throws unless a gap or freeze of `duration` is within ``maximumPause``.
    static func checkPause(_ duration: Time, _ what: String) throws(CompositionError) {
        guard duration <= maximumPause else {
            throw .invalidRange("\(what) lasts at most 24 hours (86400 s), not \(duration.readable)")
        }
    }

    /// Throws unless a timeline of `duration` is within ``maximumDuration``.
    static func checkTimeline(_ duration: Time) throws(CompositionError) {
        guard duration <= maximumDuration else {
            throw .invalidRange("this edit would make the timeline \(duration.readable) long; a timeline lasts at most 32 days (2764800 s: a day-long recording slowed 32x)")
        }
    }
}
