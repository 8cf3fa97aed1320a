import StatecraftPrimitives

/// What sees an action after its commit, as opposed to the `Listener` middleware, which sees it
/// in the chain before the reducer: the tasks waiting for an action
/// (``ThunkContext/take(where:timeout:)``) or a state (``ThunkContext/condition(_:timeout:)``),
/// and the observers of every action (``Store/actions()``).
@usableFromInline
final class CommitObservers<State: Sendable>: CommitObserving {
  typealias Waiter = CommitWaiter

  /// The store's bookkeeping, whose `commitObservers` this owns; a waiter holds this, never the
  /// store.
  private let books: Locked<Books<State>>
  /// Counts waiters and observers together (`signals`), so that a commit with none reads one
  /// word.
  private let words: StoreWords

  @usableFromInline
  init(books: Locked<Books<State>>, words: StoreWords) {
    self.books = books
    self.words = words
  }

  func makeID() -> UInt64 {
    books.withLock { $0.commitObservers.makeID() }
  }

  func add(_ waiter: Waiter, id: UInt64) {
    books.withLock { $0.commitObservers.waiting[id] = waiter }
    words.countCommitObservers(by: 1)
  }

  /// Removes the waiter `id` and returns it, if it still waits: whoever removes it resumes it.
  func remove(_ id: UInt64) -> Waiter? {
    let waiter = books.withLock { $0.commitObservers.waiting.removeValue(forKey: id) }
    if waiter != nil { words.countCommitObservers(by: -1) }
    return waiter
  }

  /// Adds an observer that sees every reduced action until removed.
  @usableFromInline
  func addObserver(_ observer: @escaping @Sendable (any Action) -> Void) -> UInt64 {
    let id = books.withLock {
      let id = $0.commitObservers.makeID()
      $0.commitObservers.observers[id] = observer
      return id
    }
    words.countCommitObservers(by: 1)
    return id
  }

  @usableFromInline
  func removeObserver(_ id: UInt64) {
    if books.withLock({ $0.commitObservers.observers.removeValue(forKey: id) }) != nil {
      words.countCommitObservers(by: -1)
    }
  }

  /// Hands `action` to the observers.
  ///
  /// Called inside the state lock, so observers see actions in reduction order; they only enqueue.
  @usableFromInline
  func notifyObservers(_ action: any Action) {
    let observers = books.withLock {
      $0.commitObservers.observers.isEmpty ? [] : Array($0.commitObservers.observers.values)
    }
    for observer in observers {
      observer(action)
    }
  }

  /// Resumes the waiters that `action` satisfies.
  ///
  /// Called after the state lock is released: predicates are user code.
  @usableFromInline
  func notify(_ action: any Action) {
    let waiting = books.withLock {
      $0.commitObservers.waiting.isEmpty ? [] : Array($0.commitObservers.waiting)
    }
    for (id, waiter) in waiting where waiter.matches(action) {
      remove(id)?.resume(.success(action))
    }
  }
}

/// The waiters and observers of a store's actions, whatever its state type: a scope's are its
/// root's.
@usableFromInline
protocol CommitObserving: AnyObject, Sendable {
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
struct CommitWaiter: Sendable {
  let matches: @Sendable (any Action) -> Bool
  let resume: @Sendable (Result<(any Action)?, any Error>) -> Void

  /// Ends the wait without an action: what the waiter waits for holds already.
  func resumeNow() {
    resume(.success(nil))
  }
}

/// The tasks waiting for an action and the observers of every action, in the store's books.
@usableFromInline
struct CommitObserverBook: Sendable {
  var waiting: [UInt64: CommitWaiter] = [:]
  var observers: [UInt64: @Sendable (any Action) -> Void] = [:]
  private var lastID: UInt64 = 0

  @usableFromInline
  init() {}

  mutating func makeID() -> UInt64 {
    lastID += 1
    return lastID
  }
}

extension CommitObservers {
  @usableFromInline
  func wait(
    where matches: @escaping @Sendable (any Action) -> Bool,
    orNow holdsNow: (@Sendable () -> Bool)?
  ) async throws -> (any Action)? {
    let commitObservers = self
    let id = commitObservers.makeID()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        commitObservers.add(.init(matches: matches) { continuation.resume(with: $0) }, id: id)
        // Cancelled before the waiter was added: the handler found nothing to resume.
        if Task.isCancelled {
          commitObservers.remove(id)?.resume(.failure(CancellationError()))
        } else if let holdsNow, holdsNow() {
          // A commit between the caller's own check and the waiter's arrival was not seen by
          // the waiter.
          commitObservers.remove(id)?.resumeNow()
        }
      }
    } onCancel: {
      commitObservers.remove(id)?.resume(.failure(CancellationError()))
    }
  }
}
