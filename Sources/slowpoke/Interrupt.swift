import ArgumentParser
import Export
import Foundation
import SafeFiles

/// SIGINT and SIGTERM stop long work cleanly: the next progress check throws, the pipeline
/// unwinds and its temporary files are removed. A second signal, or one second without the
/// command ending, removes them and exits at once (see SafeFiles' ``Signals``, installed by
/// ``Main`` before any command runs).
enum Interrupt {
    /// Whether SIGINT or SIGTERM has arrived.
    static var received: Bool { Signals.interrupted }

    static func check() throws {
        if received { throw ExportError.interrupted }
    }
}
