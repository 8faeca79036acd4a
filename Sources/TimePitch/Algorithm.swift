/// How audio is retimed, after AVAudioTimePitchAlgorithm.
public enum TimePitchAlgorithm: String, Sendable, CaseIterable, Codable {
    /// Rubber Band R3 ("finer"): the highest quality, pitch preserved. Export's default.
    case spectral
    /// Rubber Band R2 ("faster"): cheaper, pitch preserved, suits voice. Preview's default.
    case timeDomain
    /// Resampling, like tape: pitch follows the rate.
    case varispeed
}
