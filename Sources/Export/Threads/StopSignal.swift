import Foundation
import Synchronization

/// A one-way flag that one thread raises and others check, such as a worker told to stop.
final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    /// Throws ``ExportError/interrupted`` once the flag is raised.
    func check() throws {
        if raised.load(ordering: .acquiring) { throw ExportError.interrupted }
    }
}
