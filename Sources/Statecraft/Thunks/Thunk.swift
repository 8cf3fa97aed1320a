/// An action creator that does work, possibly asynchronous, and dispatches actions as it goes:
/// ReSwift-Thunk's `Thunk`, with async bodies and cancellation.
///
/// Write it the ReSwift-Thunk way, with `dispatch` and `getState`:
///
/// ```swift
/// let fetchFilms = Thunk<AppState> { dispatch, getState in
///   guard getState()?.isLoading == false else { return }
///   dispatch(SetLoading(isLoading: true))
///   filmService.load { films in dispatch(SetFilms(films: films)) }
/// }
/// mainStore.dispatch(fetchFilms)
/// ```
///
/// or with an `async` body that receives a ``ThunkContext``:
///
/// ```swift
/// let fetchFilms = Thunk<AppState> { context in
///   context.dispatch(SetLoading(isLoading: true))
///   let films = try await context.environment[FilmServiceKey.self].films()
///   context.dispatch(SetFilms(films: films))
/// }
/// ```
///
/// ``Store/dispatch(_:)-(Thunk<State>)`` runs a thunk and returns a ``ThunkTask``: await it to
/// know the thunk and the thunks it started are done, or cancel it. A thunk that produces a
/// value is an ``AsyncThunk``.
///
/// > Important: A body with `dispatch` and `getState` that does not `await` runs synchronously,
/// > inside `dispatch`, on the calling thread, as in ReSwift-Thunk, and its run ends there too,
/// > without a task, unless it dispatched thunks that still run: its ``ThunkTask`` then waits
/// > for them, and cancelling it cancels them. An `async` body runs in a new
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
  let id: ThunkID?
  /// What starting this thunk does when others with the same `id` run.
  let policy: ThunkPolicy
  let body: Body

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
/// Any `Hashable` and `Sendable` value can be an identifier; string literals work directly, with
/// interpolation too, so that one identifier names each item's work:
///
/// ```swift
/// let search = Thunk<AppState>(id: "search", policy: .cancelPrevious) { context in … }
/// func download(_ episode: Episode.ID) -> Thunk<AppState> {
///   Thunk(id: "download/\(episode)", policy: .cancelPrevious) { context in … }
/// }
/// mainStore.cancelThunks(id: "download/\(episode.id)")
/// ```
///
/// An interpolated literal is the `String` it spells: `"download/\(3)"` equals `"download/3"`.
public struct ThunkID: Hashable, Sendable, ExpressibleByStringInterpolation,
  CustomStringConvertible
{
  // In an object of its own: a run copies and destroys its thunk's optional identifier, and an
  // existential in place is copied through its dynamic type's value witnesses even when `nil`.
  private let storage: Storage

  private final class Storage: Sendable {
    let base: any Hashable & Sendable

    init(_ base: any Hashable & Sendable) {
      self.base = base
    }
  }

  private var base: any Hashable & Sendable { storage.base }

  /// Creates an identifier from any hashable value.
  ///
  /// - Parameter base: The value that identifies the thunk.
  /// - Complexity: O(1).
  public init(_ base: some Hashable & Sendable) {
    storage = Storage(base)
  }

  /// Creates an identifier from a string literal.
  ///
  /// - Parameter value: The string that identifies the thunk.
  /// - Complexity: O(1).
  public init(stringLiteral value: String) {
    storage = Storage(value)
  }

  /// Creates an identifier from a string literal with interpolations.
  ///
  /// - Parameter stringInterpolation: The literal's parts.
  /// - Complexity: O(n) in the length of the string.
  public init(stringInterpolation: DefaultStringInterpolation) {
    storage = Storage(String(stringInterpolation: stringInterpolation))
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

/// What a thunk's body works with: dispatching, the state, its environment and its cancellation.
///
/// ```swift
/// Thunk<AppState> { context in
///   guard context.state?.isLoading == false else { return }
///   context.dispatch(SetLoading(isLoading: true))
///   let films = try await context.environment[FilmServiceKey.self].films()
///   try context.checkCancellation()
///   context.dispatch(SetFilms(films: films))
/// }
/// ```
public struct ThunkContext<State: Sendable>: Sendable {
  let run: ThunkRun
  /// Where the thunk runs, held weakly: a running thunk does not keep a released store alive;
  /// it is cancelled instead (C12).
  let host: ThunkHost<State>

  /// Sends an action to the store, unless the thunk has been cancelled.
  ///
  /// A thunk dispatched here runs as a child of this one: awaiting this thunk's ``ThunkTask``
  /// also waits for it, and cancelling this thunk cancels it.
  /// - Complexity: O(1) to get; each call is a ``Store/dispatch(_:)-(Action)``.
  public let dispatch: DispatchFunction

  /// The committed state; `nil` once the store is gone.
  /// - Complexity: O(1): reads ``Store/state``.
  public var state: State? {
    host.getState()
  }

  /// The values the store provides to thunks, such as services; see ``ThunkEnvironment``.
  /// - Complexity: O(1).
  public var environment: ThunkEnvironment {
    run.runner.environment
  }

  /// Whether the thunk has been cancelled.
  ///
  /// Actions it dispatches from now on are dropped.
  /// - Complexity: O(1).
  public var isCancelled: Bool {
    run.isCancelled
  }

  /// Throws `CancellationError` if the thunk has been cancelled.
  ///
  /// - Throws: `CancellationError`.
  /// - Complexity: O(1).
  public func checkCancellation() throws {
    try run.checkCancellation()
  }
}

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
  /// Where the run ends: in its task, or before `dispatch` returned, either dropped by its
  /// policy or, for a ``Thunk`` (whose value is `Void`), done.
  ///
  /// No payload whose layout depends on `Value`: building one in code that is not specialized
  /// for it would look its type up at run time on each run.
  @usableFromInline
  enum Outcome: Sendable {
    case task(Task<Value, any Error>)
    case ended(dropped: Bool)
  }

  @usableFromInline let outcome: Outcome
  let run: ThunkRun

  // `value` is inlinable, so that the app's code knows `Value`: a thunk that ended inside
  // `dispatch` then returns without a dynamic cast.

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
  @inlinable
  public var value: Value {
    get async throws {
      switch outcome {
      case .task(let task):
        // Cancelling the task that waits does not cancel the thunk: other code may wait too.
        return try await task.value
      case .ended(dropped: true):
        throw CancellationError()
      case .ended(dropped: false):
        // Only a `Thunk`'s run, whose value is `Void`, ends before `dispatch` returns.
        guard let value = () as? Value else {
          preconditionFailure("a run of a \(Value.self) value ended without a task")
        }
        return value
      }
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
