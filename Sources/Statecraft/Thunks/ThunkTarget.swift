import StatecraftPrimitives

/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
///
/// One word: a larger enum is passed by address, and the runner's code, not specialized for the
/// app's state, copies it through its type's value witnesses, looked up at run time.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(Engine<State>)
  case handed(HandedThunkTarget<State>)

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
    case .handed(let handed): handed.dispatch
    }
  }
}

/// The `dispatch` and `getState` the thunk middleware was handed in a chain built by hand; made
/// once per chain, with the host its runs share.
final class HandedThunkTarget<State: Sendable>: Sendable {
  let dispatch: DispatchFunction
  let host: ThunkHost<State>

  init(dispatch: @escaping DispatchFunction, getState: @escaping GetState<State>) {
    self.dispatch = dispatch
    host = ThunkHost(handed: getState)
  }
}

/// Whether a run's task may start on this thread in `target`: see `ThunkRunner.startTask`.
func startsInline<State>(in target: ThunkTarget<State>) -> Bool {
  guard case .store(let engine) = target else { return false }
  return !MainQueue.isCurrent && !engine.isTurnHeld
}

/// Stops the program if `target` is a store whose reducer runs on this thread (C11).
///
/// This and the functions around it are free functions, not members of the generic
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
  case .handed(let handed): runDispatch(to: handed.dispatch, run: run)
  }
}

/// The `getState` a body with `dispatch` and `getState` receives in `target`: the committed
/// state, `nil` once the store is gone.
func getState<State>(in target: ThunkTarget<State>) -> GetState<State> {
  switch target {
  case .store(.root(let core)): core._specialized._thunkGetState(core)
  case .store(.scope(let scope)): { [weak scope] in scope?.snapshot?.state }
  case .handed(let handed): handed.host.getState
  }
}

/// Where a thunk runs in `engine`: a root store's own, made once; a scope's, made per run.
func thunkHost<State>(of engine: Engine<State>) -> ThunkHost<State> {
  switch engine {
  case .root(let core): core._specialized._thunkHost(core)
  case .scope(let scope): ThunkHost(scope: scope)
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
      host = thunkHost(of: engine)
    case .handed(let handed):
      dispatch = runDispatch(to: handed.dispatch, run: run)
      host = handed.host
    }
  }
}

/// Where a thunk runs: the engine of a root store or a scope, held weakly, or, outside a store,
/// the `getState` the thunk middleware was handed in a chain built by hand.
///
/// A class, so that a ``ThunkContext`` holds no weak reference of its own: a generic struct
/// with one is copied through its type's value witnesses, looked up at run time in the runner's
/// code, which is not specialized for the app's state. A root store makes its own once
/// (`StoreCore.thunkHost()`), in code that is.
@usableFromInline
final class ThunkHost<State: Sendable>: Sendable {
  weak let core: StoreCore<State>?
  weak let scope: ScopeCore<State>?
  /// The committed state; `nil` once the store is gone.
  @usableFromInline let getState: GetState<State>

  @usableFromInline
  init(core: StoreCore<State>) {
    self.core = core
    scope = nil
    getState = { [weak core] in core?.stateFromGenericCode }
  }

  init(scope: ScopeCore<State>) {
    core = nil
    self.scope = scope
    getState = { [weak scope] in scope?.snapshot?.state }
  }

  init(handed getState: @escaping GetState<State>) {
    core = nil
    scope = nil
    self.getState = getState
  }

  /// The engine, while its store is alive; `nil` outside a store.
  var engine: Engine<State>? {
    if let core { return .root(core) }
    if let scope { return .scope(scope) }
    return nil
  }
}

extension StoreCore {
  /// Where thunks run in this store, with the `getState` their bodies receive.
  ///
  /// Made by the first thunk that runs and kept, so that a thunk's run allocates none; not
  /// before, because holding the core weakly moves its reference counts to the runtime's slower
  /// path, which a store that runs no thunk need not pay.
  @inlinable
  func thunkHost() -> ThunkHost<State> {
    _books.withLock { books in madeThunkHost(&books) }
  }

  /// The host's `getState`, for a body that takes `dispatch` and `getState`: read under the
  /// lock, which spares the run a retain and a release of the host.
  @inlinable
  func thunkGetState() -> GetState<State> {
    _books.withLock { books in books.thunkHost?.getState ?? madeThunkHost(&books).getState }
  }

  @inlinable
  func madeThunkHost(_ books: inout Books<State>) -> ThunkHost<State> {
    if let host = books.thunkHost { return host }
    let host = ThunkHost(core: self)
    books.thunkHost = host
    return host
  }

  /// ``thunkHost()`` and ``thunkGetState()`` as `StoreCore.Specialized` keeps them, built where
  /// the store is made and so compiled for the app's `State`; here, beside the thunks that use
  /// them, so that a thunk's way does not pass through the core's file.
  @inlinable
  static var thunkHostFunction: @Sendable (StoreCore) -> ThunkHost<State> {
    { core in core.thunkHost() }
  }

  @inlinable
  static var thunkGetStateFunction: @Sendable (StoreCore) -> GetState<State> {
    { core in core.thunkGetState() }
  }
}
