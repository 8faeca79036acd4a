import Foundation
internal import CFFmpeg

/// A failed libav call: its return code and what slowpoke was doing. The message comes from
/// `av_strerror`.
public struct AVFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// libav's own wording for `code`, such as "Invalid data found when processing input".
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            String(cString: sp_av_err2str(code, pointer.baseAddress, pointer.count))
        }
    }

    public var description: String { "\(operation) failed: \(message)" }

    /// Whether libav said the input is not data it understands.
    var isInvalidData: Bool { code == sp_averror_invaliddata() }
}

extension AVFailure: LocalizedError {
    public var errorDescription: String? { description }
}
