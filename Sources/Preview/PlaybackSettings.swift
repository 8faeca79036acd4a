public import Composition
public import TimePitch

/// What the user has set: everything the status line shows except the clock. Plain state with
/// no I/O, so its rules are tested on their own.
public struct PlaybackSettings: Sendable, Hashable {
    public var rate: Rational
    public var algorithm: TimePitchAlgorithm
    public var semitones: Int
    /// The pitch-preserving algorithm `c` returns to.
    public var stretchAlgorithm: TimePitchAlgorithm
    public var playing = false
    /// Playing backwards (`J`).
    public var backwards = false
    public var markIn: Time?
    public var markOut: Time?
    /// The pitch shift chipmunk mode replaced, given back when it ends.
    var semitonesBeforeChipmunk = 0

    public init(rate: Rational = .one, algorithm: TimePitchAlgorithm = .timeDomain, semitones: Int = 0) {
        self.rate = rate
        self.algorithm = algorithm
        self.semitones = algorithm == .varispeed ? 0 : semitones
        self.stretchAlgorithm = algorithm == .varispeed ? .timeDomain : algorithm
    }

    public mutating func stepRate(_ direction: Int) { rate = RateLadder.step(from: rate, direction) }

    /// ±1 semitone within ±24; varispeed has no pitch of its own, so it switches back to the
    /// pitch-preserving algorithm first.
    public mutating func stepPitch(_ direction: Int) {
        if algorithm == .varispeed {
            algorithm = stretchAlgorithm
            semitones = semitonesBeforeChipmunk
        }
        semitones = min(24, max(-24, semitones + direction))
    }

    /// `c`: varispeed on or off. Varispeed drops the pitch shift, and gives it back when it ends.
    public mutating func toggleChipmunk() {
        if algorithm == .varispeed {
            algorithm = stretchAlgorithm
            semitones = semitonesBeforeChipmunk
        } else {
            algorithm = .varispeed
            semitonesBeforeChipmunk = semitones
            semitones = 0
        }
    }

    /// `a`: spectral or timeDomain (from varispeed, back to the last of them, switched).
    public mutating func toggleStretch() {
        stretchAlgorithm = stretchAlgorithm == .spectral ? .timeDomain : .spectral
        algorithm = stretchAlgorithm
    }

    /// The marked range, ordered, when both ends are set and differ.
    public var markedRange: TimeRange? {
        guard let a = markIn, let b = markOut, a != b else { return nil }
        return try? TimeRange(start: min(a, b), end: max(a, b))
    }

    /// `0.75x  spectral  +2 st  00:03.250 / 00:10.000  [2.000–4.500]`, with the speed heard
    /// here beside the key rate when the section at `time` changes it: `0.75x (0.1875x here)`.
    public func status(time: Time, duration: Time, section: CompositionTrackSegment? = nil) -> String {
        statusVariants(time: time, duration: duration, section: section)[0]
    }

    /// The status from the whole line to the shortest, for a window too narrow for it: the
    /// algorithm and pitch go first, then the spaces; the state, the rates, the clock and the
    /// marks stay. The notes (`notes`, such as the audio track) are only in the first.
    public func statusVariants(time: Time, duration: Time, section: CompositionTrackSegment? = nil,
                               notes: [String] = []) -> [String] {
        let state = playing ? (backwards ? "◀" : "▶") : "❚❚"
        var rate = "\(Self.rateText(self.rate))x"
        if let here = Self.speedHere(rate: self.rate, section: section) { rate += " (\(here) here)" }
        let sound = [algorithm.rawValue] + (algorithm != .varispeed ? ["\(semitones >= 0 ? "+" : "")\(semitones) st"] : [])
        let clock = { (gap: String) in "\(Self.clock(time))\(gap)/\(gap)\(Self.clock(duration))" }
        let marks = { (gap: String) -> [String] in
            switch (markIn, markOut) {
            case (nil, nil): []
            case let (a?, nil): ["[\(Self.clock(a))\(gap)–"]
            case let (nil, b?): ["–\(gap)\(Self.clock(b))]"]
            case let (a?, b?): ["[\(Self.clock(min(a, b)))\(gap)–\(gap)\(Self.clock(max(a, b)))]"]
            }
        }
        let full = ([state, rate] + sound + [clock(" ")] + marks(" ")).joined(separator: "  ")
        let short = ([state, rate, clock(" ")] + marks(" ")).joined(separator: "  ")
        let tight = ([state, rate, clock("")] + marks("")).joined(separator: " ")
        var variants = notes.isEmpty ? [] : [([full] + notes).joined(separator: "  ")]
        variants += [full, short, tight]
        return variants
    }

    /// The speed the section at the playhead plays at this rate (its rate times the key rate,
    /// negative when reversed), or what it is instead (`frozen`, `gap`); nil when it is the
    /// key rate itself.
    public static func speedHere(rate: Rational, section: CompositionTrackSegment?) -> String? {
        guard let section else { return nil }
        if section.heldTime != nil { return "frozen" }
        guard let sectionRate = section.rate else { return "gap" }
        guard sectionRate != .one || section.isReversed, let effective = try? sectionRate * rate else { return nil }
        return "\(section.isReversed ? "-" : "")\(effective.shown)x"
    }

    public static func rateText(_ rate: Rational) -> String {
        if rate.denominator == 1 { return "\(rate.numerator)" }
        if rate.doubleValue < 0.5 { return "\(rate.numerator)/\(rate.denominator)" }
        var text = String(rate.doubleValue)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// `mm:ss.mmm`, or `h:mm:ss.mmm` past an hour.
    public static func clock(_ t: Time) -> String {
        let ms = Int64((max(0, t.seconds) * 1000).rounded())
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        func two(_ x: Int64) -> String { x < 10 ? "0\(x)" : "\(x)" }
        let frac = f < 10 ? "00\(f)" : f < 100 ? "0\(f)" : "\(f)"
        return (h > 0 ? "\(h):" : "") + "\(two(m)):\(two(s)).\(frac)"
    }
}
