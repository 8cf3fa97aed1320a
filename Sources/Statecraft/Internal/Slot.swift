// Inlinable, as all the dispatch path calls (Benchmarks/README.md, "Why the engine is
// inlinable").

/// Storage for a value that the store's invariants hand to one thread at a time.
///
/// A class's stored `var` is checked for exclusive access at run time on every access; on the
/// dispatch path those checks cost more than the work they guard. A slot's value is reached
/// through a pointer, which is not checked: each use states which lock or thread owns it.
@usableFromInline
final class Slot<Value> {
  @usableFromInline let _pointer: UnsafeMutablePointer<Value>

  @inlinable
  init(_ value: Value) {
    _pointer = .allocate(capacity: 1)
    _pointer.initialize(to: value)
  }

  deinit {
    _pointer.deinitialize(count: 1)
    _pointer.deallocate()
  }
}

// Only for `Sendable` values: a slot hands its value from thread to thread. @unchecked: every user
// of a slot documents which lock or thread owns it at a time.
extension Slot: @unchecked Sendable where Value: Sendable {}
