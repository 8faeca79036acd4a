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
        if algorithm == .varispeed { algorithm = stretchAlgorithm }
        semitones = min(24, max(-24, semitones + direction))
    }

    /// `c`: varispeed on or off. Varispeed drops the pitch shift.
    public mutating func toggleChipmunk() {
        if algorithm == .varispeed {
            algorithm = stretchAlgorithm
        } else {
            algorithm = .varispeed
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

    /// `0.75x  spectral  +2 st  00:03.250 / 00:10.000  [2.000–4.500]`.
    public func status(time: Time, duration: Time) -> String {
        var parts = [playing ? (backwards ? "◀" : "▶") : "❚❚", "\(Self.rateText(rate))x", algorithm.rawValue]
        if algorithm != .varispeed { parts.append("\(semitones >= 0 ? "+" : "")\(semitones) st") }
        parts.append("\(Self.clock(time)) / \(Self.clock(duration))")
        switch (markIn, markOut) {
        case (nil, nil): break
        case let (a?, nil): parts.append("[\(Self.clock(a)) –")
        case let (nil, b?): parts.append("– \(Self.clock(b))]")
        case let (a?, b?): parts.append("[\(Self.clock(min(a, b))) – \(Self.clock(max(a, b)))]")
        }
        return parts.joined(separator: "  ")
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
