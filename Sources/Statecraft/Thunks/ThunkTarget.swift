import StatecraftPrimitives

/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(Engine<State>)
  case handed(dispatch: DispatchFunction, getState: GetState<State>)

  /// This target as one of `Other`, which ``startable(_:for:)`` checked is `State`.
  func `as`<Other>(_: Other.Type) -> ThunkTarget<Other> {
    guard let target = self as? ThunkTarget<Other> else {
      preconditionFailure("a thunk of \(Other.self) started on a target of \(State.self)")
    }
    return target
  }

  /// Dispatches the actions the runner itself sends, such as lifecycle actions.
  var dispatch: DispatchFunction {
    switch self {
    case .store(.root(let core)): { [weak core] action in core?.dispatchFromGenericCode(action) }
    case .store(.scope(let scope)): { [weak scope] action in scope?.dispatch(action) }
    case .handed(let dispatch, _): dispatch
    }
  }
}

extension ThunkTarget {
  /// Whether a run's task may start on this thread: see `ThunkRunner.startTask(on:_:)`.
  var startsInline: Bool {
    guard case .store(let engine) = self else { return false }
    return !MainQueue.isCurrent && !engine.isTurnHeld
  }
}

/// Stops the program if `target` is a store whose reducer runs on this thread (C11).
///
/// This and the two functions below are free functions, not members of the generic
/// `ThunkTarget`, as `runDispatch(to:run:runner:)` says why.
func checkNotReducing<State>(_ target: ThunkTarget<State>, _ call: @autoclosure () -> String) {
  switch target {
  case .store(let engine): engine.checkNotReducing(.method(call()))
  case .handed: break
  }
}

/// The `dispatch` a run's body receives in `target`: see `runDispatch(to:run:runner:)`.
func runDispatch<State>(in target: ThunkTarget<State>, run: ThunkRun, runner: ThunkRunner)
  -> DispatchFunction
{
  switch target {
  case .store(let engine): runDispatch(to: engine, run: run, runner: runner)
  case .handed(let dispatch, _): runDispatch(to: dispatch, run: run)
  }
}

/// The `getState` a body with `dispatch` and `getState` receives in `target`: the committed
/// state, `nil` once the store is gone.
func getState<State>(in target: ThunkTarget<State>) -> GetState<State> {
  switch target {
  case .store(.root(let core)): core._specialized._thunkGetState(core)
  case .store(.scope(let scope)): { [weak scope] in scope?.snapshot?.state }
  case .handed(_, let getState): getState
  }
}

/// The `dispatch` a run's body receives in a store.
///
/// It drops actions once the run is cancelled, and starts the thunks among them as the run's
/// children. Built once per run, not on each use.
///
/// Free functions, not members of the generic `ThunkTarget`: a member would look its type up
/// at run time on each run, in code that is not specialized for the app's state.
func runDispatch<State>(to engine: Engine<State>, run: ThunkRun, runner: ThunkRunner)
  -> DispatchFunction
{
  switch engine {
  case .root(let core):
    { [weak core] action in
      guard !run.isCancelled, let core else { return }
      runner.dispatch(action, on: .root(core), parent: run)
    }
  case .scope(let scope):
    { [weak scope] action in
      guard !run.isCancelled, let scope else { return }
      runner.dispatch(action, on: .scope(scope), parent: run)
    }
  }
}

/// The `dispatch` a run's body receives outside a store.
///
/// The handed one, dropping actions once the run is cancelled.
func runDispatch(to dispatch: @escaping DispatchFunction, run: ThunkRun) -> DispatchFunction {
  { action in
    guard !run.isCancelled else { return }
    dispatch(action)
  }
}

extension ThunkContext {
  /// The context of `run`, in `target`.
  ///
  /// Its `dispatch` is built once per run, not on each use.
  init(run: ThunkRun, runner: ThunkRunner, target: ThunkTarget<State>) {
    self.run = run
    self.runner = runner
    switch target {
    case .store(let engine):
      dispatch = runDispatch(to: engine, run: run, runner: runner)
      switch engine {
      case .root(let core):
        self.core = core
        scope = nil
      case .scope(let scope):
        core = nil
        self.scope = scope
      }
      handedGetState = nil
    case .handed(let dispatch, let getState):
      self.dispatch = runDispatch(to: dispatch, run: run)
      core = nil
      scope = nil
      handedGetState = getState
    }
  }

  /// The function ``getState`` returns: a store's own (`StoreCore.thunkGetState()`); for a scope, made
  /// on each read, so that a run that never reads the state allocates none.
  func makeGetState() -> GetState<State> {
    if let handedGetState { return handedGetState }
    if let scope { return { [weak scope] in scope?.snapshot?.state } }
    guard let core else { return { nil } }
    return core._specialized._thunkGetState(core)
  }
}

extension StoreCore {
  /// The `getState` a thunk's body receives: the committed state, `nil` once the store is gone.
  ///
  /// Made by the first thunk that runs and kept, so that a thunk's run allocates none; not
  /// before, because holding the core weakly moves its reference counts to the runtime's slower
  /// path, which a store that runs no thunk need not pay.
  @inlinable
  func thunkGetState() -> GetState<State> {
    _books.withLock { books in
      if let getState = books.thunkGetState { return getState }
      let getState: GetState<State> = { [weak self] in self?._reduction.stateIfAny }
      books.thunkGetState = getState
      return getState
    }
  }

  /// ``thunkGetState()`` as `StoreCore.Specialized` keeps it, built where the store is made and
  /// so compiled for the app's `State`; here, beside the thunks that use it, so that a thunk's
  /// way does not pass through the core's file.
  @inlinable
  static var thunkGetStateFunction: @Sendable (StoreCore) -> GetState<State> {
    { core in core.thunkGetState() }
  }
}
