import Foundation
import Synchronization

/// A one-way flag that one thread raises and others check, such as a worker told to stop.
package final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    package init() {}

    package func raise() { raised.store(true, ordering: .releasing) }

    /// Throws ``MediaError/interrupted`` once the flag is raised.
    package func check() throws(MediaError) {
        if raised.load(ordering: .acquiring) { throw .interrupted }
    }
}
