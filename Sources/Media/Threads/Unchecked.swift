import Foundation
import Synchronization

/// Moves a value that is not `Sendable` to another thread that becomes its only user.
package struct Unchecked<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
