import Foundation
public import Composition

/// Errors reading an OpenTimelineIO file. Every message names the item it is about.
public enum OTIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not JSON, or not an OTIO timeline.
    case notATimeline(String)
    /// A required field is missing or has the wrong type.
    case malformed(String)
    /// Valid OTIO that a slowpoke timeline cannot represent.
    case unsupported(String)
    /// The timeline does not say which one movie file its clips play, so the import needs the
    /// movie named apart (the command line's `--movie`).
    case unbound(String)

    public var description: String {
        switch self {
        case .notATimeline(let why), .malformed(let why), .unsupported(let why), .unbound(let why): why
        }
    }
}

extension OTIOError: LocalizedError {
    public var errorDescription: String? { description }
}
