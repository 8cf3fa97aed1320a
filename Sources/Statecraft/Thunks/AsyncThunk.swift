/// A thunk that produces a value and dispatches its own lifecycle: pending, then fulfilled with the
/// value, rejected with the error, or cancelled.
///
/// Redux Toolkit's `createAsyncThunk`.
///
/// ```swift
/// func loadUser(id: Int) -> AsyncThunk<AppState, User> {
///   AsyncThunk("user/load") { context in
///     try await context.environment[UserServiceKey.self].user(id: id)
///   }
/// }
///
/// let user = try await mainStore.dispatch(loadUser(id: 7)).value
/// ```
///
/// Reducers react to the lifecycle without boilerplate in the thunk:
///
/// ```swift
/// if let action = action as? ThunkLifecycle<User>, action.name == "user/load" {
///   switch action.phase {
///   case .pending: state.isLoading = true
///   case .fulfilled(let user): state.user = user; state.isLoading = false
///   case .rejected(let error): state.error = "\(error)"; state.isLoading = false
///   case .cancelled: state.isLoading = false
///   }
/// }
/// ```
///
/// An error the body throws never escapes: it becomes the `rejected` action, is thrown from
/// ``ThunkTask/value``, and goes to ``Store/thunkErrorHandler``.
///
/// Each run ends with exactly one of `fulfilled`, `rejected` or `cancelled`. `cancelled` is
/// dispatched when the run is cancelled, on the cancelling thread, before the cancelling call
/// returns: with ``ThunkPolicy/cancelPrevious``, the superseded run's `cancelled` is reduced before the new
/// run's `pending`.
public struct AsyncThunk<State: Sendable, Value: Sendable>: Action {
  /// The name carried by the lifecycle actions, to tell them apart in reducers.
  public let name: String
  /// The identifier used to cancel the thunk, if it has one.
  public let id: ThunkID?
  /// What starting this thunk does when others with the same ``id`` run; see ``ThunkPolicy``.
  public let policy: ThunkPolicy
  let body: @Sendable (ThunkContext<State>) async throws -> Value

  /// Creates a thunk that produces a value.
  ///
  /// - Parameters:
  ///   - name: The name its lifecycle actions carry, such as `"user/load"`.
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work, run in a new task, off the main actor unless the closure is
  ///     `@MainActor`.
  /// - Complexity: O(1).
  public init(
    _ name: String,
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ body: @escaping @Sendable (ThunkContext<State>) async throws -> Value
  ) {
    self.name = name
    self.id = id
    self.policy = policy
    self.body = body
  }
}

/// The action an ``AsyncThunk`` dispatches as it starts and ends.
public struct ThunkLifecycle<Value: Sendable>: Action {
  /// Where the thunk is in its work.
  public enum Phase: Sendable {
    /// The thunk started.
    case pending
    /// The thunk returned this value.
    case fulfilled(Value)
    /// The thunk threw this error.
    case rejected(any Error)
    /// The thunk was cancelled before it finished.
    case cancelled
  }

  /// The name of the ``AsyncThunk``.
  public let name: String
  /// A number that is the same for the actions of one run of the thunk.
  public let requestID: UInt64
  /// Where the thunk is in its work.
  public let phase: Phase

  /// Creates a lifecycle action, for unit tests of reducers; the store makes the real ones.
  ///
  /// - Parameters:
  ///   - name: The name of the ``AsyncThunk``.
  ///   - requestID: A number shared by the actions of one run.
  ///   - phase: Where the thunk is in its work.
  /// - Complexity: O(1).
  public init(name: String, requestID: UInt64, phase: Phase) {
    self.name = name
    self.requestID = requestID
    self.phase = phase
  }
}
