extension ThunkContext {
  /// Waits until the store reduces an action of type `Wanted` that `predicate` accepts, and
  /// returns it: Redux Toolkit's listener `take`.
  ///
  /// ```swift
  /// Thunk<AppState> { context in
  ///   let login = try await context.take(LoggedIn.self)
  ///   context.dispatch(LoadProfile(user: login.user))
  /// }
  /// ```
  ///
  /// Only actions reduced after the call count. Waiting ends with an error when the thunk is
  /// cancelled or the timeout passes.
  ///
  /// - Parameters:
  ///   - type: The type of action to wait for.
  ///   - predicate: Accepts the action; called on the thread that dispatched it, so keep it
  ///     short and do not dispatch from it.
  ///   - timeout: How long to wait at most; `nil` waits until cancelled.
  /// - Returns: The action.
  /// - Throws: `CancellationError` if the thunk is cancelled, ``ThunkTimeoutError`` if the
  ///   timeout passes.
  /// - Complexity: O(1) to start waiting; the predicate runs once per reduced action until it
  ///   accepts one.
  public func take<Wanted: Action>(
    _ type: Wanted.Type,
    where predicate: @escaping @Sendable (Wanted) -> Bool = { _ in true },
    timeout: Interval? = nil
  ) async throws -> Wanted {
    let action = try await take(
      where: { ($0 as? Wanted).map(predicate) ?? false }, timeout: timeout)
    // Always succeeds: the predicate accepted only a `Wanted`.
    guard let wanted = action as? Wanted else { throw CancellationError() }
    return wanted
  }

  /// Waits until the store reduces an action that `predicate` accepts, and returns it.
  ///
  /// - Parameters:
  ///   - predicate: Accepts the action; called on the thread that dispatched it, so keep it
  ///     short and do not dispatch from it.
  ///   - timeout: How long to wait at most; `nil` waits until cancelled.
  /// - Returns: The action.
  /// - Throws: `CancellationError` if the thunk is cancelled, ``ThunkTimeoutError`` if the
  ///   timeout passes.
  /// - Complexity: O(1) to start waiting; the predicate runs once per reduced action until it
  ///   accepts one.
  public func take(
    where predicate: @escaping @Sendable (any Action) -> Bool,
    timeout: Interval? = nil
  ) async throws -> any Action {
    try checkCancellation()
    // The observers, not the engine: a thunk waiting here must not keep a released store alive.
    guard let observers = host.engine?.commitObservers else { throw CancellationError() }
    return try await withTimeout(timeout) {
      guard let action = try await observers.wait(where: predicate, orNow: nil) else {
        preconditionFailure("a wait without `orNow` ends with an action")
      }
      return action
    }
  }

  /// Waits until the committed state satisfies `predicate`: Redux Toolkit's listener
  /// `condition`.
  ///
  /// Returns at once if the state already does.
  ///
  /// ```swift
  /// try await context.condition({ $0.session != nil }, timeout: .seconds(5))
  /// ```
  ///
  /// - Parameters:
  ///   - predicate: Tests a committed state; called after each reduced action, on the thread
  ///     that dispatched it.
  ///   - timeout: How long to wait at most; `nil` waits until cancelled.
  /// - Throws: `CancellationError` if the thunk is cancelled or the store is gone,
  ///   ``ThunkTimeoutError`` if the timeout passes.
  /// - Complexity: One predicate call per reduced action, each on a committed state, until it
  ///   holds.
  public func condition(
    _ predicate: @escaping @Sendable (State) -> Bool,
    timeout: Interval? = nil
  ) async throws {
    try checkCancellation()
    guard let observers = host.engine?.commitObservers else {
      throw CancellationError()
    }
    let getState = host.getState
    let holds: @Sendable () -> Bool = { getState().map(predicate) ?? false }
    if holds() { return }
    _ = try await withTimeout(timeout) {
      try await observers.wait(where: { _ in holds() }, orNow: holds)
    }
  }
}

/// The error thrown when waiting in a thunk takes longer than its timeout.
public struct ThunkTimeoutError: Error, Sendable, Equatable {
  /// The timeout that passed.
  /// - Complexity: O(1).
  public let timeout: Interval
}

/// Runs `operation`, throwing ``ThunkTimeoutError`` if it takes longer than `timeout`.
private func withTimeout<Result: Sendable>(
  _ timeout: Interval?,
  _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  guard let timeout else { return try await operation() }
  return try await withThrowingTaskGroup(of: Result.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await Task.sleep(nanoseconds: timeout.nanoseconds)
      throw ThunkTimeoutError(timeout: timeout)
    }
    defer { group.cancelAll() }
    guard let first = try await group.next() else { throw CancellationError() }
    return first
  }
}
