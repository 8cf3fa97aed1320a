import Foundation

/// A value behind an `NSLock`; sendable when its value is.
package final class LockedBox<Value> {
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) {
    self.value = value
  }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

// @unchecked Sendable: `value` is touched only inside `withLock`, which holds `lock`.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
