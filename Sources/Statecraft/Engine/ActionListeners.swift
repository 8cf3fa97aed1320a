/// The tasks waiting for an action (``ThunkContext/take(where:timeout:)``) or a state
/// (``ThunkContext/condition(_:timeout:)``), checked after every commit.
@usableFromInline
final class ActionListeners: Sendable {
  struct Listener: Sendable {
    let matches: @Sendable (any Action) -> Bool
    let resume: @Sendable (Result<any Action, any Error>) -> Void
  }

  /// How many listeners wait; `notify` is skipped while it is zero.
  @usableFromInline let _count = AtomicCell<Int>(0)
  /// How many observers there are; `notifyObservers` is skipped while it is zero.
  @usableFromInline let _observerCount = AtomicCell<Int>(0)
  private let listeners = Locked<[UInt64: Listener]>([:])
  private let observers = Locked<[UInt64: @Sendable (any Action) -> Void]>([:])
  private let nextID = AtomicCell<UInt64>(0)

  @usableFromInline
  init() {}

  func makeID() -> UInt64 {
    nextID.add(1, ordering: .relaxed).newValue
  }

  func add(_ listener: Listener, id: UInt64) {
    listeners.withLock { $0[id] = listener }
    _count.add(1, ordering: .relaxed)
  }

  /// Removes the listener `id` and returns it, if it still waits: whoever removes it resumes it.
  func remove(_ id: UInt64) -> Listener? {
    let listener = listeners.withLock { $0.removeValue(forKey: id) }
    if listener != nil { _count.subtract(1, ordering: .relaxed) }
    return listener
  }

  /// Adds an observer that sees every reduced action until removed.
  func addObserver(_ observer: @escaping @Sendable (any Action) -> Void) -> UInt64 {
    let id = makeID()
    observers.withLock { $0[id] = observer }
    _observerCount.add(1, ordering: .relaxed)
    return id
  }

  func removeObserver(_ id: UInt64) {
    if observers.withLock({ $0.removeValue(forKey: id) }) != nil {
      _observerCount.subtract(1, ordering: .relaxed)
    }
  }

  /// Hands `action` to the observers.
  ///
  /// Called inside the state lock, so observers see actions in reduction order; they only enqueue.
  @usableFromInline
  func notifyObservers(_ action: any Action) {
    for observer in observers.withLock({ Array($0.values) }) {
      observer(action)
    }
  }

  /// Resumes the listeners that `action` satisfies.
  ///
  /// Called after the state lock is released: predicates are user code.
  @usableFromInline
  func notify(_ action: any Action) {
    let waiting = listeners.withLock { Array($0) }
    for (id, listener) in waiting where listener.matches(action) {
      remove(id)?.resume(.success(action))
    }
  }
}

extension ActionListeners {
  /// Waits until an action that `matches` is reduced, or the task is cancelled.
  func wait(where matches: @escaping @Sendable (any Action) -> Bool) async throws -> any Action {
    let listeners = self
    let id = listeners.makeID()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        listeners.add(.init(matches: matches) { continuation.resume(with: $0) }, id: id)
        // Cancelled before the listener was added: the handler found nothing to resume.
        if Task.isCancelled {
          listeners.remove(id)?.resume(.failure(CancellationError()))
        }
      }
    } onCancel: {
      listeners.remove(id)?.resume(.failure(CancellationError()))
    }
  }
}
