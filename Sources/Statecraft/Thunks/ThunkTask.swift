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
  /// A thunk dropped by its policy (``ThunkPolicy/dropWhileRunning``,
  /// ``ThunkPolicy/throttle(_:)``), an ``AsyncThunk`` that was cancelled, and a ``Thunk`` whose
  /// body stopped at a cancellation check (``ThunkContext/checkCancellation()``, `Task.sleep`)
  /// throw `CancellationError` here, as Swift's own cancellation does, so that
  /// `catch is CancellationError` handles all of them; a cancelled ``Thunk`` whose body returns
  /// anyway returns normally. Whenever the thunk was cancelled or dropped, whether by the caller,
  /// by id, or superseded by a newer run with the same id (``ThunkPolicy/cancelPrevious``,
  /// ``ThunkPolicy/debounce(_:)``), ``cancellationReason`` says which happened:
  ///
  /// ```swift
  /// do {
  ///   films = try await task.value
  /// } catch is CancellationError {
  ///   print("not loaded:", task.cancellationReason.map { "\($0)" } ?? "cancelled")
  /// }
  /// ```
  ///
  /// - Throws: The error the thunk threw, or `CancellationError` if it was dropped, or cancelled
  ///   and stopped.
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
    run.cancel(.cancelledByCaller)
  }

  /// Why the thunk was cancelled or dropped, or `nil` if it was not.
  ///
  /// Set at the moment of cancellation, before the cancelling call returns.
  /// - Complexity: O(1).
  public var cancellationReason: ThunkCancellationReason? {
    run.cancellationReason
  }

  /// Whether the thunk has been cancelled.
  /// - Complexity: O(1).
  public var isCancelled: Bool {
    run.isCancelled
  }
}

/// Why a thunk was cancelled or dropped: what ``ThunkTask/cancellationReason`` says after its
/// ``ThunkTask/value`` threw `CancellationError`.
public enum ThunkCancellationReason: Sendable, Equatable, CustomStringConvertible {
  /// ``ThunkTask/cancel()`` was called.
  case cancelledByCaller
  /// ``Store/cancelThunks(id:)`` was called with the thunk's id.
  case cancelledByID(ThunkID)
  /// A newer run with the same id superseded it, under this policy (``ThunkPolicy/cancelPrevious``
  /// or ``ThunkPolicy/debounce(_:)``).
  case superseded(by: ThunkPolicy)
  /// Its policy dropped it before it ran (``ThunkPolicy/dropWhileRunning`` or
  /// ``ThunkPolicy/throttle(_:)``).
  case dropped(by: ThunkPolicy)
  /// The thunk that dispatched it was cancelled.
  case parentCancelled
  /// The store that ran it was released.
  case storeReleased

  /// A sentence fragment that says why: "superseded by a newer run (cancelPrevious)".
  /// - Complexity: O(1).
  public var description: String {
    switch self {
    case .cancelledByCaller: "cancelled by its task's cancel()"
    case .cancelledByID(let id): "cancelled by cancelThunks(id: \(id))"
    case .superseded(let policy): "superseded by a newer run with the same id (\(policy))"
    case .dropped(let policy): "dropped by its policy (\(policy)) before it ran"
    case .parentCancelled: "cancelled with the thunk that dispatched it"
    case .storeReleased: "cancelled because its store was released"
    }
  }
}
