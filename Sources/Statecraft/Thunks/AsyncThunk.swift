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
/// Reducers react to the lifecycle without boilerplate in the thunk, matching it by the thunk
/// with ``lifecycle(of:)``:
///
/// ```swift
/// if let event = loadUser(id: 0).lifecycle(of: action) {
///   switch event.phase {
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
  /// - Complexity: O(1).
  public let name: String
  /// The identifier used to cancel the thunk, if it has one.
  let id: ThunkID?
  /// What starting this thunk does when others with the same `id` run.
  let policy: ThunkPolicy
  let body: @Sendable (ThunkContext<State>) async throws -> Value
  /// Makes the run's lifecycle actions.
  @usableFromInline let lifecycle: ThunkLifecycleMaker<Value>

  /// Creates a thunk that produces a value.
  ///
  /// - Parameters:
  ///   - name: The name its lifecycle actions carry, such as `"user/load"`.
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work, run in a new task, off the main actor unless the closure is
  ///     `@MainActor`.
  /// - Complexity: O(1).
  @inlinable
  public init(
    _ name: String,
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ body: @escaping @Sendable (ThunkContext<State>) async throws -> Value
  ) {
    self.init(name, id: id, policy: policy, body, lifecycle: ThunkLifecycleMaker())
  }

  @usableFromInline
  init(
    _ name: String, id: ThunkID?, policy: ThunkPolicy,
    _ body: @escaping @Sendable (ThunkContext<State>) async throws -> Value,
    lifecycle: ThunkLifecycleMaker<Value>
  ) {
    self.name = name
    self.id = id
    self.policy = policy
    self.body = body
    self.lifecycle = lifecycle
  }
}

/// Makes an ``AsyncThunk``'s lifecycle actions; built where the thunk is made, in inlinable
/// code, and so compiled for the app's `Value`.
///
/// The runner's code is not specialized: made there, each action would look
/// `ThunkLifecycle<Value>` and its `Phase` up at run time. The closures capture nothing, so
/// making the thunk allocates none. The runner copies them out one by one: a copy of the whole
/// struct, five words or more, would go through its type's value witnesses.
@usableFromInline @frozen
struct ThunkLifecycleMaker<Value: Sendable>: Sendable {
  @usableFromInline let pending: @Sendable (_ name: String, _ requestID: UInt64) -> any Action
  @usableFromInline let cancelled: @Sendable (_ name: String, _ requestID: UInt64) -> any Action
  @usableFromInline let fulfilled:
    @Sendable (_ name: String, _ requestID: UInt64, _ value: Value) -> any Action
  @usableFromInline let rejected:
    @Sendable (_ name: String, _ requestID: UInt64, _ error: any Error) -> any Action

  @inlinable
  init() {
    pending = { ThunkLifecycle<Value>(name: $0, requestID: $1, phase: .pending) }
    cancelled = { ThunkLifecycle<Value>(name: $0, requestID: $1, phase: .cancelled) }
    fulfilled = { ThunkLifecycle<Value>(name: $0, requestID: $1, phase: .fulfilled($2)) }
    rejected = { ThunkLifecycle<Value>(name: $0, requestID: $1, phase: .rejected($2)) }
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
  /// - Complexity: O(1).
  public let name: String
  /// A number that is the same for the actions of one run of the thunk.
  /// - Complexity: O(1).
  public let requestID: UInt64
  /// Where the thunk is in its work.
  /// - Complexity: O(1).
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

extension ThunkLifecycle {
  /// Whether this is the `pending` action: the run started.
  ///
  /// `!isPending` says the run ended, fulfilled, rejected or cancelled: the moment to clear a
  /// spinner.
  /// - Complexity: O(1).
  public var isPending: Bool {
    if case .pending = phase { true } else { false }
  }

  /// The value the run produced, if this is the `fulfilled` action.
  /// - Complexity: O(1).
  public var value: Value? {
    if case .fulfilled(let value) = phase { value } else { nil }
  }

  /// The error the run threw, if this is the `rejected` action.
  /// - Complexity: O(1).
  public var error: (any Error)? {
    if case .rejected(let error) = phase { error } else { nil }
  }
}

extension ThunkLifecycle.Phase: Equatable where Value: Equatable {
  /// Whether two phases are the same; errors compare by their full description.
  /// - Complexity: The `==` of the values, or the descriptions of the errors.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.pending, .pending), (.cancelled, .cancelled): true
    case (.fulfilled(let lhs), .fulfilled(let rhs)): lhs == rhs
    case (.rejected(let lhs), .rejected(let rhs)):
      String(reflecting: lhs) == String(reflecting: rhs)
    default: false
    }
  }
}

extension ThunkLifecycle: Equatable where Value: Equatable {}

extension AsyncThunk {
  /// The lifecycle action of a run of this thunk, if `action` is one: match by the thunk, not by
  /// its name.
  ///
  /// ```swift
  /// let loadFilms = AsyncThunk<AppState, [Film]>("films/load") { context in … }
  ///
  /// func reduce(_ state: inout AppState, _ action: any Action) {
  ///   if let event = loadFilms.lifecycle(of: action) {
  ///     state.isLoading = event.isPending
  ///     if let films = event.value { state.films = films }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter action: Any action.
  /// - Returns: The lifecycle action, if it has this thunk's value type and name.
  /// - Complexity: O(n) for a name of n characters: one cast and one comparison.
  public func lifecycle(of action: any Action) -> ThunkLifecycle<Value>? {
    guard let lifecycle = action as? ThunkLifecycle<Value>, lifecycle.name == name else {
      return nil
    }
    return lifecycle
  }
}

extension AsyncThunk {
  /// How a misuse message names the thunk: by its name, and its id if it has one.
  var misuseName: String {
    "AsyncThunk \"\(name)\"" + (id.map { " with id \($0)" } ?? "")
  }
}
