// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

/// The value a subscription step saw last.
///
/// Kept in a buffer rather than a captured `var`: a captured `var` is checked for exclusive
/// access at run time on every notification, which costs more than the comparison it guards.
/// One allocation holds the object and the value.
/// Only the main actor touches it, through the one step that owns it. The header is a tag the
/// step may keep beside the value (a memoized selector's computation number).
@usableFromInline
final class PreviousValue<Value>: ManagedBuffer<Int, Value?> {
  @inlinable
  static func make() -> PreviousValue<Value> {
    let buffer = create(minimumCapacity: 1) { _ in 0 }
    buffer.withUnsafeMutablePointerToElements { $0.initialize(to: nil) }
    return unsafeDowncast(buffer, to: PreviousValue<Value>.self)
  }

  deinit {
    _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: 1) }
  }

  /// Stores `value` and returns the value stored before it.
  @inlinable
  func exchange(_ value: Value) -> Value? {
    withUnsafeMutablePointerToElements { storage in
      let previous = storage.move()
      storage.initialize(to: value)
      return previous
    }
  }

  /// Stores `tag` and returns the tag stored before it (0 at first).
  @inlinable
  func exchangeTag(_ tag: Int) -> Int {
    withUnsafeMutablePointerToHeader { header in
      let previous = header.pointee
      header.pointee = tag
      return previous
    }
  }
}
