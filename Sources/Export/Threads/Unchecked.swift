import Foundation
import Synchronization

/// Moves a value that is not `Sendable` to another thread that becomes its only user.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
