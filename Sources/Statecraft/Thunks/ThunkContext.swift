/// What a thunk's body works with: dispatching, the state, its environment and its cancellation.
///
/// ```swift
/// Thunk<AppState> { context in
///   guard context.state?.isLoading == false else { return }
///   context.dispatch(SetLoading(true))
///   let films = try await context.environment[FilmServiceKey.self].films()
///   try context.checkCancellation()
///   context.dispatch(SetFilms(films))
/// }
/// ```
public struct ThunkContext<State: Sendable>: Sendable {
  let run: ThunkRun
  let runner: ThunkRunner
  /// Weak: a running thunk does not keep a released store alive; it is cancelled instead (C12).
  weak var core: StoreCore<State>?
  /// Outside a store: the functions the thunk middleware was handed in a chain built by hand.
  let handed: (dispatch: DispatchFunction, getState: GetState<State>)?

  init(run: ThunkRun, runner: ThunkRunner, target: ThunkTarget<State>) {
    self.run = run
    self.runner = runner
    // Built once per run: as a computed property it was a closure allocated on every call of
    // `context.dispatch(action)`.
    switch target {
    case .store(let core):
      self.core = core
      handed = nil
      dispatch = { [weak core] action in
        guard !run.isCancelled, let core else { return }
        runner.dispatch(action, on: core, parent: run)
      }
    case .handed(let dispatch, let getState):
      core = nil
      handed = (dispatch, getState)
      self.dispatch = { action in
        guard !run.isCancelled else { return }
        dispatch(action)
      }
    }
  }

  /// Sends an action to the store, unless the thunk has been cancelled.
  ///
  /// A thunk dispatched here runs as a child of this one: awaiting this thunk's ``ThunkTask``
  /// also waits for it, and cancelling this thunk cancels it.
  /// - Complexity: O(1) to get; each call is a ``Store/dispatch(_:)-(Action)``.
  public let dispatch: DispatchFunction

  /// Reads the committed state; `nil` once the store is gone.
  /// - Complexity: O(1) to get; each call reads ``Store/state``.
  public var getState: GetState<State> {
    if let handed { return handed.getState }
    return { [weak core] in core?.stateFromGenericCode }
  }

  /// The committed state; `nil` once the store is gone.
  /// - Complexity: O(1): reads ``Store/state``.
  public var state: State? {
    if let handed { return handed.getState() }
    return core?.stateFromGenericCode
  }

  /// The values the store provides to thunks, such as services; see ``ThunkEnvironment``.
  /// - Complexity: O(1).
  public var environment: ThunkEnvironment {
    runner.environment
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
    if run.isCancelled { throw CancellationError() }
  }
}
