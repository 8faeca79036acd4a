import Foundation

/// Runs work with glibc filling every block it hands out (`M_PERTURB`), so that what the work
/// computes cannot depend on what earlier work left in memory it reuses.
///
/// libx264 (0.164, Debian 12) encoding the same pictures with the same settings on one thread
/// now and then gave different bytes in slowpoke's process: a smart cut's re-encoded IDR picture
/// differed in its last macroblocks in 3 exports of 30 of one document, more often on a busy
/// machine. Its input was the same every time (pictures, timestamps, flags and floating-point
/// state were logged and compared), copies of the pictures in zeroed buffers changed nothing,
/// and `MALLOC_PERTURB_` made 30 exports of 30 identical: the encoder reads memory it never
/// wrote, which holds whatever the process freed there before. Filling costs a `memset` of each
/// block allocated and freed while it is on: only the few re-encoded frames of a cut run under it.
///
/// Nested and concurrent uses share one switch: it is on while any of them runs.
package enum FilledAllocations {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var users = 0

    package static func during<T>(_ body: () throws -> T) rethrows -> T {
        change(by: 1)
        defer { change(by: -1) }
        return try body()
    }

    private static func change(by step: Int) {
        lock.lock()
        defer { lock.unlock() }
        let before = users
        users += step
        if (before == 0) != (users == 0) { set(users > 0 ? 0xA5 : 0) }
    }

    private static func set(_ byte: Int32) {
        MallocOption.set(MallocOption.perturb, byte)
    }
}
