import Foundation

/// How audio is retimed, after AVAudioTimePitchAlgorithm.
public enum TimePitchAlgorithm: String, Sendable, CaseIterable, Codable {
    /// Rubber Band R3 ("finer"): the highest quality, pitch preserved. Export's default.
    case spectral
    /// Rubber Band R2 ("faster"): cheaper, pitch preserved, suits voice. Preview's default.
    case timeDomain
    /// Resampling, like tape: pitch follows the rate.
    case varispeed
}

/// The algorithm and an optional pitch shift.
public struct TimePitchSettings: Sendable, Hashable {
    public let algorithm: TimePitchAlgorithm
    /// Pitch shift in semitones, -24…+24; only for spectral and timeDomain.
    public let semitones: Double

    public static let semitoneRange: ClosedRange<Double> = -24...24

    public init(algorithm: TimePitchAlgorithm = .spectral, semitones: Double = 0) throws(TimePitchError) {
        guard semitones.isFinite, Self.semitoneRange.contains(semitones) else { throw .semitonesOutOfRange(semitones) }
        if algorithm == .varispeed && semitones != 0 { throw .semitonesWithVarispeed }
        self.algorithm = algorithm
        self.semitones = semitones
    }

    /// The frequency factor of the shift: 2 for +12 semitones.
    public var pitchScale: Double { Foundation.pow(2, semitones / 12) }
}
