import StatecraftPrimitives

/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
///
/// One word: a larger enum is passed by address, and the runner's code, not specialized for the
/// app's state, copies it through its type's value witnesses, looked up at run time.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(Engine<State>)
  /// The host made once per chain from the `dispatch` and `getState` the middleware was handed.
  case handed(ThunkHost<State>)

  /// This target as one of `Other`, which ``startable(_:for:)`` checked is `State`.
  func `as`<Other>(_: Other.Type) -> ThunkTarget<Other> {
    guard let target = self as? ThunkTarget<Other> else {
      preconditionFailure("a thunk of \(Other.self) started on a target of \(State.self)")
    }
    return target
  }
}

// The functions on a target are free functions, not members of the generic `ThunkTarget`: a
// member would look its type up at run time on each run, in code that is not specialized for
// the app's state.

/// Whether a run's task may start on this thread in `target`: see `ThunkRunner.startTask`.
func startsInline<State>(in target: ThunkTarget<State>) -> Bool {
  switch target {
  case .store(.root(let core)): !MainQueue.isCurrent && !core.isTurnHeld
  case .store(.scope(let scope)): !MainQueue.isCurrent && !scope.isTurnHeld
  case .handed: false
  }
}

/// Stops the program if `target` is a store whose reducer runs on this thread (C11).
func checkNotReducing<State>(_ target: ThunkTarget<State>, _ call: @autoclosure () -> String) {
  switch target {
  case .store(let engine): engine.checkNotReducing(.method(call()))
  case .handed: break
  }
}

extension ThunkContext {
  /// The context of `run`, in `host`.
  init(run: ThunkRun, host: ThunkHost<State>) {
    self.run = run
    self.host = host
    dispatch = run.dispatchFunction
  }
}

/// Where the thunks of a runner run.
///
/// The engine of a root store or a scope, held weakly, or, outside a store, the `dispatch` and
/// `getState` the thunk middleware was handed in a chain built by hand. Made once per runner
/// (`ThunkRunner.host(for:)`), with the closures each run uses, so that a run makes none.
///
/// A class, so that a ``ThunkContext`` holds no weak reference of its own: a generic struct
/// with one is copied through its type's value witnesses, looked up at run time in the runner's
/// code, which is not specialized for the app's state.
@usableFromInline
final class ThunkHost<State: Sendable>: Sendable {
  weak let core: StoreCore<State>?
  weak let scope: ScopeCore<State>?
  /// The committed state; `nil` once the store is gone.
  let getState: GetState<State>
  /// Dispatches the actions the runner itself sends, such as lifecycle actions.
  let dispatch: DispatchFunction
  /// Dispatches an action of a run's body: starts the thunks among them as the run's children.
  let runDispatch: @Sendable (any Action, ThunkRun) -> Void

  /// The host of a root store: its `getState` is the core's, compiled for the app's `State`
  /// where the store was made (`StoreCore.Specialized`).
  @usableFromInline
  init(core: StoreCore<State>) {
    self.core = core
    scope = nil
    getState = core._specialized._thunkGetState(core)
    dispatch = { [weak core] action in core?.dispatchFromGenericCode(action) }
    runDispatch = { [weak core] action, run in
      guard let core else { return }
      run.runner.dispatch(action, on: .root(core), parent: run)
    }
  }

  init(scope: ScopeCore<State>) {
    core = nil
    self.scope = scope
    getState = { [weak scope] in scope?.snapshot?.state }
    dispatch = { [weak scope] action in scope?.dispatch(action) }
    runDispatch = { [weak scope] action, run in
      guard let scope else { return }
      run.runner.dispatch(action, on: .scope(scope), parent: run)
    }
  }

  /// The host of a chain built by hand: the handed `dispatch`, which never starts a child.
  init(handed dispatch: @escaping DispatchFunction, getState: @escaping GetState<State>) {
    core = nil
    scope = nil
    self.getState = getState
    self.dispatch = dispatch
    runDispatch = { action, _ in dispatch(action) }
  }

  /// The engine, while its store is alive; `nil` outside a store.
  var engine: Engine<State>? {
    if let core { return .root(core) }
    if let scope { return .scope(scope) }
    return nil
  }
}

extension StoreCore {
  /// The runner's host and the `getState` a thunk's body receives, built in code compiled for
  /// the app's `State` (`StoreCore.Specialized`), beside the thunks that use them, so that a
  /// thunk's way does not pass through the core's file.
  @inlinable
  static var thunkHostFunction: @Sendable (StoreCore, ThunkRunner) -> ThunkHost<State> {
    { core, runner in
      if let host = runner.keptHost(as: ThunkHost<State>.self) { return host }
      return knownObject(runner.keep(ThunkHost(core: core)), as: ThunkHost<State>.self)
    }
  }

  @inlinable
  static var thunkGetStateFunction: @Sendable (StoreCore) -> GetState<State> {
    { core in { [weak core] in core?.stateFromGenericCode } }
  }
}
