/// An action creator that does work, possibly asynchronous, and dispatches actions as it goes:
/// ReSwift-Thunk's `Thunk`, with async bodies and cancellation.
///
/// Write it the ReSwift-Thunk way, with `dispatch` and `getState`:
///
/// ```swift
/// let fetchFilms = Thunk<AppState> { dispatch, getState in
///   guard getState()?.isLoading == false else { return }
///   dispatch(SetLoading(true))
///   filmService.load { films in dispatch(SetFilms(films)) }
/// }
/// mainStore.dispatch(fetchFilms)
/// ```
///
/// or with an `async` body that receives a ``ThunkContext``:
///
/// ```swift
/// let fetchFilms = Thunk<AppState> { context in
///   context.dispatch(SetLoading(true))
///   let films = try await context.environment[FilmServiceKey.self].films()
///   context.dispatch(SetFilms(films))
/// }
/// ```
///
/// ``Store/dispatch(_:)-(Thunk<State>)`` runs a thunk and returns a ``ThunkTask``: await it to
/// know the thunk and the thunks it started are done, or cancel it. A thunk that produces a
/// value is an ``AsyncThunk``.
///
/// > Important: A body with `dispatch` and `getState` that does not `await` runs synchronously,
/// > inside `dispatch`, on the calling thread, as in ReSwift-Thunk. An `async` body runs in a new
/// > task, off the main actor unless the closure is `@MainActor`. Dispatched from another thread
/// > (not the main queue, not a middleware), that task starts on the dispatching thread and runs
/// > there until its first suspension, as `Task.immediate` does (macOS 26, iOS 26 and later;
/// > always on Linux); what it dispatches before then is reduced before `dispatch` returns. Once
/// > a thunk is cancelled, the actions it dispatches are dropped.
public struct Thunk<State: Sendable>: Action {
  enum Body: Sendable {
    case immediate(
      @Sendable (_ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>) ->
        Void)
    case async(@Sendable (ThunkContext<State>) async throws -> Void)
  }

  /// The identifier used to cancel the thunk, if it has one.
  /// - Complexity: O(1).
  public let id: ThunkID?
  /// What starting this thunk does when others with the same ``id`` run; see ``ThunkPolicy``.
  /// - Complexity: O(1).
  public let policy: ThunkPolicy
  let body: Body

  /// Creates a thunk with ReSwift-Thunk's body, run synchronously inside `dispatch`.
  ///
  /// - Parameters:
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work. `dispatch` sends actions (and thunks) to the store; `getState` reads
  ///     the committed state, or `nil` once the store is gone.
  /// - Complexity: O(1).
  @preconcurrency
  public init(
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ body:
      @escaping @Sendable (
        _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
      ) -> Void
  ) {
    self.id = id
    self.policy = policy
    self.body = .immediate(body)
  }

  /// Creates a thunk with ReSwift-Thunk's parameters and an asynchronous body.
  ///
  /// - Parameters:
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work, run in a new task. Errors it throws go to the ``ThunkTask`` and to
  ///     ``Store/thunkErrorHandler``.
  /// - Complexity: O(1).
  @preconcurrency
  public init(
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ body:
      @escaping @Sendable (
        _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
      ) async throws -> Void
  ) {
    self.id = id
    self.policy = policy
    self.body = .async { context in try await body(context.dispatch, context.getState) }
  }

  /// Creates a thunk with an asynchronous body that receives a ``ThunkContext``.
  ///
  /// - Parameters:
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work, run in a new task. Errors it throws go to the ``ThunkTask`` and to
  ///     ``Store/thunkErrorHandler``.
  /// - Complexity: O(1).
  @preconcurrency
  public init(
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ body: @escaping @Sendable (ThunkContext<State>) async throws -> Void
  ) {
    self.id = id
    self.policy = policy
    self.body = .async(body)
  }
}

/// An identifier that running thunks can be cancelled by.
///
/// Any `Hashable` and `Sendable` value can be an identifier; string literals work directly:
///
/// ```swift
/// let search = Thunk<AppState>(id: "search", policy: .cancelPrevious) { context in … }
/// ```
public struct ThunkID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  private let base: any Hashable & Sendable

  /// Creates an identifier from any hashable value.
  ///
  /// - Parameter base: The value that identifies the thunk.
  /// - Complexity: O(1).
  public init(_ base: some Hashable & Sendable) {
    self.base = base
  }

  /// Creates an identifier from a string literal.
  ///
  /// - Parameter value: The string that identifies the thunk.
  /// - Complexity: O(1).
  public init(stringLiteral value: String) {
    self.base = value
  }

  /// Whether two identifiers wrap equal values of the same type.
  /// - Complexity: The `==` of the wrapped values.
  public static func == (lhs: ThunkID, rhs: ThunkID) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  /// The wrapped value as `String(reflecting:)` shows it: `"search"` for a string.
  /// - Complexity: The wrapped value's description.
  public var description: String {
    String(reflecting: base)
  }

  /// Hashes the wrapped value.
  ///
  /// - Parameter hasher: The hasher to feed.
  /// - Complexity: The hash of the wrapped value.
  public func hash(into hasher: inout Hasher) {
    AnyHashable(base).hash(into: &hasher)
  }
}

extension Thunk {
  /// How a misuse message names the thunk: its type, and its id if it has one.
  var misuseName: String {
    "Thunk<\(State.self)>" + (id.map { " with id \($0)" } ?? "")
  }
}
