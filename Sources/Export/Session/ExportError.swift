import Foundation
public import SafeFiles
public import Composition
public import Media
internal import CFFmpeg

/// Errors from probing, reading and exporting media.
public enum ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist or cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// libav cannot read the file as media.
    case notMedia(path: String, reason: String)
    /// Any other libav failure reading or writing the file at `path`.
    case av(path: String, AVFailure)
    /// A libav failure tied to no file: memory, a sample converter, a filter graph.
    case libav(AVFailure)
    /// slowpoke will not do this, for the user's safety (overwriting the input, say).
    case refused(String)
    case cannotWrite(path: String, reason: String)
    /// The output could not be claimed or put in place (see ``OutputFile``).
    case output(SafeFileError)
    /// The user asked for something the file or format cannot do.
    case unsupported(String)
    /// The user asked for something the file or format cannot do and other options can: the
    /// facts, and the remedies, which each front end words as its own options.
    case unavailable(Notice)
    /// Encoder settings the user gave (`settings`, one or more) that the encoder does not take,
    /// and why: "is outside 0…51".
    case encoderSettings(_ settings: [EncoderSettings.Override], String)
    /// Stopped by SIGINT or SIGTERM.
    case interrupted
    /// The written output differs from what the export planned (`--verify`); it was kept at `kept`.
    case verificationFailed(ExportVerification.Failure, kept: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .notMedia(let path, let reason): "\(path) is not a movie or audio file that slowpoke can read (\(reason))"
        case .av(let path, let failure): "\(path): \(failure.description)"
        case .libav(let failure): failure.description
        case .refused(let why), .unsupported(let why): why
        case .unavailable(let notice): notice.description
        case .encoderSettings(let settings, let why): settings.map(\.rawValue).joined(separator: " and ") + " " + why
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .output(let error): error.errorDescription ?? error.description
        case .interrupted: "interrupted; no output was written"
        case .verificationFailed(let failure, let kept): "\(failure); the output is kept as \(kept)"
        }
    }
}

extension ExportError: CustomDebugStringConvertible {
    public var debugDescription: String { description }
}

extension ExportError: LocalizedError {
    public var errorDescription: String? { description }
}

/// Runs `body`, which reads media or opens a library, throwing its ``MediaError`` as the
/// ``ExportError`` of the same name.
func media<T>(_ body: () throws(MediaError) -> T) throws(ExportError) -> T {
    do throws(MediaError) { return try body() } catch { throw ExportError(error) }
}

/// Throws an ``AVFailure`` for a negative libav return code.
@discardableResult
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(AVFailure) -> Int32 {
    if code < 0 { throw AVFailure(code: code, operation: operation()) }
    return code
}

extension ExportError {
    /// The same fact as an export error: each ``MediaError`` has a case of the same name here,
    /// with the same message.
    init(_ error: MediaError) {
        switch error {
        case .cannotOpen(let path, let reason): self = .cannotOpen(path: path, reason: reason)
        case .notMedia(let path, let reason): self = .notMedia(path: path, reason: reason)
        case .av(let path, let failure): self = .av(path: path, failure)
        case .libav(let failure): self = .libav(failure)
        case .unsupported(let what): self = .unsupported(what)
        case .interrupted: self = .interrupted
        }
    }

    /// Throws ``unsupported(_:)`` unless `url` ends in one of `allowed`, saying, for example,
    /// "slowpoke stretch writes .wav or .flac, not .mp3".
    static func requireExtension(of url: URL, in allowed: [String], _ verb: String) throws(ExportError) {
        let ext = url.pathExtension.lowercased()
        guard !allowed.contains(ext) else { return }
        let names = allowed.map { "." + $0 }
        let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        throw .unsupported("\(verb) \(list), not .\(ext.isEmpty ? "(no extension)" : ext)")
    }
}
