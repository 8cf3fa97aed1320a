import StatecraftPrimitives

/// The tasks waiting for an action (``ThunkContext/take(where:timeout:)``) or a state
/// (``ThunkContext/condition(_:timeout:)``), checked after every commit.
@usableFromInline
final class ActionListeners<State: Sendable>: ActionListening {
  typealias Listener = ActionListenersListener

  /// The store's bookkeeping, whose `listeners` this owns; a waiter holds this, never the store.
  private let books: Locked<Books<State>>
  /// Counts listeners and observers together (`signals`), so that a commit with none reads one
  /// word.
  private let words: StoreWords

  @usableFromInline
  init(books: Locked<Books<State>>, words: StoreWords) {
    self.books = books
    self.words = words
  }

  func makeID() -> UInt64 {
    books.withLock { $0.listeners.makeID() }
  }

  func add(_ listener: Listener, id: UInt64) {
    books.withLock { $0.listeners.waiting[id] = listener }
    words.countListeners(by: 1)
  }

  /// Removes the listener `id` and returns it, if it still waits: whoever removes it resumes it.
  func remove(_ id: UInt64) -> Listener? {
    let listener = books.withLock { $0.listeners.waiting.removeValue(forKey: id) }
    if listener != nil { words.countListeners(by: -1) }
    return listener
  }

  /// Adds an observer that sees every reduced action until removed.
  @usableFromInline
  func addObserver(_ observer: @escaping @Sendable (any Action) -> Void) -> UInt64 {
    let id = books.withLock {
      let id = $0.listeners.makeID()
      $0.listeners.observers[id] = observer
      return id
    }
    words.countListeners(by: 1)
    return id
  }

  @usableFromInline
  func removeObserver(_ id: UInt64) {
    if books.withLock({ $0.listeners.observers.removeValue(forKey: id) }) != nil {
      words.countListeners(by: -1)
    }
  }

  /// Hands `action` to the observers.
  ///
  /// Called inside the state lock, so observers see actions in reduction order; they only enqueue.
  @usableFromInline
  func notifyObservers(_ action: any Action) {
    let observers = books.withLock {
      $0.listeners.observers.isEmpty ? [] : Array($0.listeners.observers.values)
    }
    for observer in observers {
      observer(action)
    }
  }

  /// Resumes the listeners that `action` satisfies.
  ///
  /// Called after the state lock is released: predicates are user code.
  @usableFromInline
  func notify(_ action: any Action) {
    let waiting = books.withLock {
      $0.listeners.waiting.isEmpty ? [] : Array($0.listeners.waiting)
    }
    for (id, listener) in waiting where listener.matches(action) {
      remove(id)?.resume(.success(action))
    }
  }
}

/// The waiters and observers of a store's actions, whatever its state type: a scope's are its
/// root's.
@usableFromInline
protocol ActionListening: AnyObject, Sendable {
  /// Waits until an action that `matches` is reduced, or, once waiting, `holdsNow` holds; or the
  /// task is cancelled. Returns the action, or `nil` for `holdsNow`.
  func wait(
    where matches: @escaping @Sendable (any Action) -> Bool,
    orNow holdsNow: (@Sendable () -> Bool)?
  ) async throws -> (any Action)?
  /// Adds an observer that sees every reduced action until removed.
  func addObserver(_ observer: @escaping @Sendable (any Action) -> Void) -> UInt64
  func removeObserver(_ id: UInt64)
}

/// A task waiting for an action (``ThunkContext/take(where:timeout:)``) or a state
/// (``ThunkContext/condition(_:timeout:)``).
struct ActionListenersListener: Sendable {
  let matches: @Sendable (any Action) -> Bool
  let resume: @Sendable (Result<(any Action)?, any Error>) -> Void

  /// Ends the wait without an action: what the listener waits for holds already.
  func resumeNow() {
    resume(.success(nil))
  }
}

/// The tasks waiting for an action and the observers of every action, in the store's books.
@usableFromInline
struct ListenerBook: Sendable {
  var waiting: [UInt64: ActionListenersListener] = [:]
  var observers: [UInt64: @Sendable (any Action) -> Void] = [:]
  private var lastID: UInt64 = 0

  @usableFromInline
  init() {}

  mutating func makeID() -> UInt64 {
    lastID += 1
    return lastID
  }
}

extension ActionListeners {
  @usableFromInline
  func wait(
    where matches: @escaping @Sendable (any Action) -> Bool,
    orNow holdsNow: (@Sendable () -> Bool)?
  ) async throws -> (any Action)? {
    let listeners = self
    let id = listeners.makeID()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        listeners.add(.init(matches: matches) { continuation.resume(with: $0) }, id: id)
        // Cancelled before the listener was added: the handler found nothing to resume.
        if Task.isCancelled {
          listeners.remove(id)?.resume(.failure(CancellationError()))
        } else if let holdsNow, holdsNow() {
          // A commit between the caller's own check and the listener's arrival was not seen by
          // the listener.
          listeners.remove(id)?.resumeNow()
        }
      }
    } onCancel: {
      listeners.remove(id)?.resume(.failure(CancellationError()))
    }
  }
}
