/// The tasks waiting for an action (``ThunkContext/take(where:timeout:)``) or a state
/// (``ThunkContext/condition(_:timeout:)``), checked after every commit.
@usableFromInline
final class ActionListeners: Sendable {
  struct Listener: Sendable {
    let matches: @Sendable (any Action) -> Bool
    let resume: @Sendable (Result<any Action, any Error>) -> Void
  }

  private struct Book: Sendable {
    var listeners: [UInt64: Listener] = [:]
    var observers: [UInt64: @Sendable (any Action) -> Void] = [:]
    var nextID: UInt64 = 0
  }

  private let book = Locked(Book())
  /// Counts listeners and observers together (`signals`), so that a commit with none reads one
  /// word.
  private let words: StoreWords

  @usableFromInline
  init(words: StoreWords) {
    self.words = words
  }

  func makeID() -> UInt64 {
    book.withLock {
      $0.nextID += 1
      return $0.nextID
    }
  }

  func add(_ listener: Listener, id: UInt64) {
    book.withLock { $0.listeners[id] = listener }
    words.countListeners(by: 1)
  }

  /// Removes the listener `id` and returns it, if it still waits: whoever removes it resumes it.
  func remove(_ id: UInt64) -> Listener? {
    let listener = book.withLock { $0.listeners.removeValue(forKey: id) }
    if listener != nil { words.countListeners(by: -1) }
    return listener
  }

  /// Adds an observer that sees every reduced action until removed.
  func addObserver(_ observer: @escaping @Sendable (any Action) -> Void) -> UInt64 {
    let id = book.withLock {
      $0.nextID += 1
      $0.observers[$0.nextID] = observer
      return $0.nextID
    }
    words.countListeners(by: 1)
    return id
  }

  func removeObserver(_ id: UInt64) {
    if book.withLock({ $0.observers.removeValue(forKey: id) }) != nil {
      words.countListeners(by: -1)
    }
  }

  /// Hands `action` to the observers.
  ///
  /// Called inside the state lock, so observers see actions in reduction order; they only enqueue.
  @usableFromInline
  func notifyObservers(_ action: any Action) {
    let observers = book.withLock { $0.observers.isEmpty ? [] : Array($0.observers.values) }
    for observer in observers {
      observer(action)
    }
  }

  /// Resumes the listeners that `action` satisfies.
  ///
  /// Called after the state lock is released: predicates are user code.
  @usableFromInline
  func notify(_ action: any Action) {
    let waiting = book.withLock { $0.listeners.isEmpty ? [] : Array($0.listeners) }
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
