import Foundation
import Synchronization

/// A bounded first-in, first-out queue between threads. A producer waits while it is full and a
/// consumer while it is empty, so memory stays bounded however long the stream. Either side can
/// stop the other: ``fail(_:)`` wakes everyone, and every later push or pop throws that error.
package final class BlockingQueue<Element>: @unchecked Sendable {
    // @unchecked: every stored property is read and written only under `condition`'s lock;
    // elements move from one thread to another and are never touched by both.
    private let condition = NSCondition()
    private var items: [Element?] = []
    private var head = 0
    private var closed = false
    private var failure: (any Error)?
    let capacity: Int

    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// What a ``pop(timeout:)`` found.
    package enum Popped {
        case item(Element)
        /// The producer closed the queue and everything in it has been taken.
        case end
        /// Nothing arrived within the timeout.
        case timedOut
    }

    /// Appends `item`, waiting while the queue is full. Throws once the queue has failed.
    package func push(_ item: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        precondition(!closed, "push after close")
        items.append(item)
        condition.broadcast()
    }

    /// Takes the oldest item, waiting up to `timeout` seconds (forever when nil) for one.
    package func pop(timeout: TimeInterval? = nil) throws -> Popped {
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
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops both sides: the first error wins and is thrown by every later push and pop.
    package func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }
}
