import Foundation

/// What went wrong reading a movie or calling libav, as facts: which file, which operation,
/// what libav said, what is missing. It names no command-line flag and gives no advice: the
/// exporters turn it into their own errors and the front ends word the remedies.
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist or cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// libav cannot read the file as media.
    case notMedia(path: String, reason: String)
    /// Any other libav failure reading the file at `path`.
    case av(path: String, AVFailure)
    /// A libav failure tied to no file: memory, a sample converter, a filter graph.
    case libav(AVFailure)
    /// The file, a stream in it or the libraries cannot do this: what, and what is missing.
    case unsupported(String)
    /// Stopped by SIGINT or SIGTERM, or by the thread that waited for this work.
    case interrupted

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .notMedia(let path, let reason): "\(path) is not a movie or audio file that slowpoke can read (\(reason))"
        case .av(let path, let failure): "\(path): \(failure.description)"
        case .libav(let failure): failure.description
        case .unsupported(let what): what
        case .interrupted: "interrupted; no output was written"
        }
    }
}

extension MediaError: CustomDebugStringConvertible {
    public var debugDescription: String { description }
}

extension MediaError: LocalizedError {
    public var errorDescription: String? { description }
}
