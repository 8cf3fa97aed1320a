/// The value a subscription step saw last.
///
/// Kept behind a pointer rather than in a captured `var`: a captured `var` is checked for
/// exclusive access at run time on every notification, which cost more than the comparison it
/// guards (37% of the instructions with 1,000 subscribers). Only the main actor touches it,
/// through the one step that owns it.
@usableFromInline
final class PreviousValue<Value> {
  @usableFromInline let storage: UnsafeMutablePointer<Value?>

  @inlinable
  init() {
    storage = .allocate(capacity: 1)
    storage.initialize(to: nil)
  }

  deinit {
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  /// Stores `value` and returns the value stored before it.
  @inlinable
  func exchange(_ value: Value) -> Value? {
    let previous = storage.move()
    storage.initialize(to: value)
    return previous
  }
}
