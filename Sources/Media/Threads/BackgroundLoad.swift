import Foundation

/// Work that loads something (shared libraries) on a thread of its own, started once, so that
/// it overlaps other work on the second core; ``settle()`` waits for it. The process must not
/// exit while libraries' constructors run on the other thread: `exit` then runs destructors
/// beside them, and libgomp aborts (found by the hostile-input fuzzer: `info` on a broken
/// document died of SIGABRT after its error). Used by `LibAV.preload` and Export's
/// `FlowLibrary.preload`.
package final class BackgroundLoad: @unchecked Sendable {
    // @unchecked: `done` is read and written only under `lock`.
    private let lock = NSLock()
    private var done: DispatchSemaphore?

    package init() {}

    /// Starts `work` on a thread of its own (1 MB of stack) and returns at once; a second call
    /// does nothing.
    package func start(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard done == nil else { return }
        let finished = DispatchSemaphore(value: 0)
        done = finished
        let thread = Thread {
            work()
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the work ``start(_:)`` began to finish; returns at once if none was started.
    package func settle() {
        lock.lock()
        let finished = done
        lock.unlock()
        guard let finished else { return }
        finished.wait()
        finished.signal()
    }
}
