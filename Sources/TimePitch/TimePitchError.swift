import Foundation

/// What can go wrong while retiming audio.
public enum TimePitchError: Error, Equatable, Sendable, CustomStringConvertible {
    case semitonesOutOfRange(Double)
    /// Varispeed's pitch already follows the rate; a separate shift makes no sense there.
    case semitonesWithVarispeed
    case unsupportedFormat(String)
    /// Rubber Band or libswresample could not be set up.
    case engine(String)
    /// The audio source failed; its own error is kept in the message.
    case source(String)
    /// A playback rate outside 1/32 to 32.
    case rateOutOfRange(String)

    public var description: String {
        switch self {
        case .semitonesOutOfRange(let n):
            "\(Self.format(n)) semitones is outside the supported -24 to +24"
        case .semitonesWithVarispeed:
            "a pitch shift works with the spectral and timeDomain algorithms; with varispeed the pitch follows the rate"
        case .unsupportedFormat(let what), .engine(let what), .source(let what), .rateOutOfRange(let what):
            what
        }
    }

    static func format(_ n: Double) -> String {
        n.isFinite && n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
    }
}

extension TimePitchError: LocalizedError {
    public var errorDescription: String? { description }
}
