import Foundation
import Synchronization

/// Hands items to `consume` on a thread of its own through a ``BlockingQueue``, so that a
/// producer (decoding and stretching, say) and a consumer (encoding or writing) use two cores.
/// ``finish()`` waits for the consumer and runs `finished` on its thread; either side's error
/// stops both, and ``finish()`` or the next ``push(_:)`` throws it.
package final class BackgroundConsumer<Element>: @unchecked Sendable {
    // @unchecked: the worker thread owns `consume` and `finished`; the queue is locked, and
    // `joined` is touched only by the owner.
    private let queue: BlockingQueue<Element>
    private let done = DispatchSemaphore(value: 0)
    private var joined = false

    package init(capacity: Int = 16, name: String, consume: @escaping (Element) throws -> Void,
         finished: @escaping () throws -> Void = {}) {
        let queue = BlockingQueue<Element>(capacity: capacity)
        self.queue = queue
        // The worker holds the queue, not this object, so dropping the owner cancels it.
        let work = Unchecked((consume, finished))
        let thread = Thread { [done] in
            defer { done.signal() }
            do {
                while case .item(let item) = try queue.pop() { try work.value.0(item) }
                try work.value.1()
            } catch {
                queue.fail(error)
            }
        }
        thread.name = name
        thread.start()
    }

    /// Stops the worker if it is still running: it never outlives its owner.
    deinit { cancel() }

    /// Queues `item`, waiting while the queue is full; throws the worker's error.
    package func push(_ item: Element) throws { try queue.push(item) }

    /// Waits for the worker to consume everything and run `finished`; throws its error. With
    /// `poll`, that runs on the calling thread about every `interval` seconds while it waits, so
    /// that the caller can report progress and notice an interrupt; when it throws, the worker
    /// is cancelled and the error rethrown.
    package func finish(interval: TimeInterval = 0.05, polling poll: (() throws -> Void)? = nil) throws {
        queue.close()
        if let poll {
            while !joined && done.wait(timeout: .now() + interval) == .timedOut {
                do { try poll() } catch {
                    cancel()
                    throw error
                }
            }
            joined = true
        }
        join()
        // A failed queue throws its error here; a finished one is simply at its end.
        _ = try queue.pop(timeout: 0)
    }

    /// Stops the worker without finishing and waits for it.
    package func cancel() {
        queue.fail(MediaError.interrupted)
        join()
    }

    private func join() {
        guard !joined else { return }
        done.wait()
        joined = true
    }
}
