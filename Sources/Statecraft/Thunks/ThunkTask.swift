/// A running thunk: await its value, or cancel it.
///
/// Returned by ``Store/dispatch(_:)-(Thunk<State>)`` and
/// ``Store/dispatch(_:)-(AsyncThunk<State,Value>)``. Discarding it does not cancel the thunk.
///
/// ```swift
/// let task = mainStore.dispatch(search(for: "hope"))
/// task.cancel()                   // or:
/// let films = try await task.value
/// ```
public struct ThunkTask<Value: Sendable>: Sendable {
  let task: Task<Value, any Error>
  let run: ThunkRun

  /// The thunk's result, once it and the thunks it dispatched have finished.
  ///
  /// - Throws: The error the thunk threw, or `CancellationError` if it was cancelled.
  /// - Complexity: Waits for the thunk and the thunks it dispatched.
  public var value: Value {
    get async throws {
      // Cancelling the task that waits does not cancel the thunk: other code may wait too.
      try await task.value
    }
  }

  /// Cancels the thunk and the thunks it dispatched.
  ///
  /// Actions they dispatch from now on are dropped; the thunk's own `Task` is cancelled so its
  /// `await`s can stop early.
  /// - Complexity: O(c) for the c thunks it dispatched.
  public func cancel() {
    run.cancel()
  }

  /// Whether the thunk has been cancelled.
  /// - Complexity: O(1).
  public var isCancelled: Bool {
    run.isCancelled
  }
}
