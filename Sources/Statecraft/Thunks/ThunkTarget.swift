/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(Engine<State>)
  case handed(dispatch: DispatchFunction, getState: GetState<State>)

  func checkNotReducing(_ call: @autoclosure () -> String) {
    if case .store(let engine) = self { engine.checkNotReducing(.method(call())) }
  }

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
