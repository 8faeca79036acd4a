import Synchronization

/// A thread-safe count, for property checks that tally what they really checked: each such
/// test asserts a minimum, so that one whose cases are all skipped fails instead of passing.
public final class Counter: Sendable {
    private let count = Mutex(0)

    public init() {}

    public func add() { count.withLock { $0 += 1 } }
    public var value: Int { count.withLock { $0 } }
}
