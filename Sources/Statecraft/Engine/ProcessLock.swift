// Inlinable, so that the app compiles the path of an action for its own `State`: built
// generic in the library, a main-thread dispatch with one subscriber took 10,772 instructions
// instead of 1,099 and allocated, a dispatch from another thread 1,637 instead of 339
// (callgrind, Benchmarks/README.md, "Why the engine is inlinable").

/// The lock held while middleware and reducer run for one action and every action it causes,
/// with the thread that holds it and that thread's queue of re-entrant dispatches (C2, C4).
///
/// Only stores with middleware take it: without middleware nothing can dispatch re-entrantly on
/// the dispatching thread, so the state lock alone orders reductions.
///
/// `_pending` is read and written only by the thread recorded in `_owner`, which holds `_lock`
/// for the whole time it is recorded there.
@usableFromInline
final class ProcessLock: Sendable {
  @usableFromInline let _lock = Lock()
  /// The thread that holds `_lock`, or 0.
  @usableFromInline let _owner = AtomicCell<UInt>(0)
  @usableFromInline let _pending = Slot(FIFO<any Action>())

  @inlinable
  init() {}

  /// Whether `thread` holds the lock.
  @inlinable
  func isOwned(by thread: UInt) -> Bool {
    _owner.load(ordering: .relaxed) == thread
  }

  /// Holds the lock and records `thread` as its owner while `body` runs.
  @inlinable
  func whileOwning<Result>(_ thread: UInt, _ body: () -> Result) -> Result {
    _lock.withLock {
      _owner.store(thread, ordering: .relaxed)
      defer { _owner.store(0, ordering: .relaxed) }
      return body()
    }
  }

  /// Queues an action dispatched re-entrantly by the owner.
  @inlinable
  func enqueue(_ action: any Action) {
    _pending._pointer.pointee.append(action)
  }

  /// Removes the next queued action; call only as the owner.
  @inlinable
  func popPending() -> (any Action)? {
    _pending._pointer.pointee.popFirst()
  }
}
