public import Foundation
import Glibc

/// Standard input saved to a private file, for a command that reads its input more than once
/// (`slowpoke stretch - out.wav`, with a sound piped in). The file is made new (`O_EXCL`, mode
/// 0600) in the temporary folder as `slowpoke-scratch-<pid>-stdin-…`, removed by ``remove()``,
/// and by the signal handlers if the process is interrupted while it exists.
public final class SpooledInput {
    /// The saved copy.
    public let url: URL
    /// How many bytes standard input gave.
    public let bytes: Int64
    private var slot: Int32

    /// Reads standard input to its end into a new private file. `check` runs between reads and
    /// throws to stop (an interrupt, for a pipe that never ends); the file is then removed.
    public init(check: () throws -> Void) throws {
        var template = Array((NSTemporaryDirectory() + "/slowpoke-scratch-\(getpid())-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = String(cString: template.map { UInt8(bitPattern: $0) })
        guard fd >= 0 else { throw SafeFileError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        slot = Signals.removeOnSignal(path)
        url = URL(fileURLWithPath: path)
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        defer { close(fd) }
        do {
            while true {
                try check()
                let got = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else { throw SafeFileError.cannotRead(path: "standard input", reason: String(cString: strerror(errno))) }
                if got == 0 { break }
                var done = 0
                while done < got {
                    let wrote = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + done, got - done) }
                    if wrote < 0 && errno == EINTR { continue }
                    guard wrote > 0 else { throw SafeFileError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
                    done += wrote
                }
                total += Int64(got)
            }
        } catch {
            unlink(path)
            Signals.forget(slot)
            throw error
        }
        bytes = total
    }

    /// Removes the saved copy (once; later calls do nothing).
    public func remove() {
        guard slot >= -1 else { return }
        unlink(url.path)
        Signals.forget(slot)
        slot = -2
    }

    deinit { remove() }
}
