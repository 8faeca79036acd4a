import Foundation
import Synchronization

/// A bounded first-in, first-out queue between threads. A producer waits while it is full and a
/// consumer while it is empty, so memory stays bounded however long the stream. Either side can
/// stop the other: ``fail(_:)`` wakes everyone, and every later push or pop throws that error.
final class BlockingQueue<Element>: @unchecked Sendable {
    // @unchecked: every stored property is read and written only under `condition`'s lock;
    // elements move from one thread to another and are never touched by both.
    private let condition = NSCondition()
    private var items: [Element?] = []
    private var head = 0
    private var closed = false
    private var failure: (any Error)?
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// What a ``pop(timeout:)`` found.
    enum Popped {
        case item(Element)
        /// The producer closed the queue and everything in it has been taken.
        case end
        /// Nothing arrived within the timeout.
        case timedOut
    }

    /// Appends `item`, waiting while the queue is full. Throws once the queue has failed.
    func push(_ item: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        precondition(!closed, "push after close")
        items.append(item)
        condition.broadcast()
    }

    /// Takes the oldest item, waiting up to `timeout` seconds (forever when nil) for one.
    func pop(timeout: TimeInterval? = nil) throws -> Popped {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        while items.count == head && !closed && failure == nil {
            if let deadline {
                if !condition.wait(until: deadline) && items.count == head && !closed && failure == nil { return .timedOut }
            } else {
                condition.wait()
            }
        }
        if let failure { throw failure }
        if items.count == head { return .end }
        let item = items[head]!
        items[head] = nil
        head += 1
        if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return .item(item)
    }

    /// No more items will come; consumers get ``Popped/end`` once they have taken the rest.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops both sides: the first error wins and is thrown by every later push and pop.
    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }
}

/// Hands items to `consume` on a thread of its own through a ``BlockingQueue``, so that a
/// producer (decoding and stretching, say) and a consumer (encoding or writing) use two cores.
/// ``finish()`` waits for the consumer and runs `finished` on its thread; either side's error
/// stops both, and ``finish()`` or the next ``push(_:)`` throws it.
final class BackgroundConsumer<Element>: @unchecked Sendable {
    // @unchecked: the worker thread owns `consume` and `finished`; the queue is locked, and
    // `joined` is touched only by the owner.
    private let queue: BlockingQueue<Element>
    private let done = DispatchSemaphore(value: 0)
    private var joined = false

    init(capacity: Int = 16, name: String, consume: @escaping (Element) throws -> Void,
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
    func push(_ item: Element) throws { try queue.push(item) }

    /// Waits for the worker to consume everything and run `finished`; throws its error. With
    /// `poll`, that runs on the calling thread about every `interval` seconds while it waits, so
    /// that the caller can report progress and notice an interrupt; when it throws, the worker
    /// is cancelled and the error rethrown.
    func finish(interval: TimeInterval = 0.05, polling poll: (() throws -> Void)? = nil) throws {
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
    func cancel() {
        queue.fail(ExportError.interrupted)
        join()
    }

    private func join() {
        guard !joined else { return }
        done.wait()
        joined = true
    }
}

/// Moves a value that is not `Sendable` to another thread that becomes its only user.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A one-way flag that one thread raises and others check, such as a worker told to stop.
final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    /// Throws ``ExportError/interrupted`` once the flag is raised.
    func check() throws {
        if raised.load(ordering: .acquiring) { throw ExportError.interrupted }
    }
}
