import StatecraftPrimitives

/// A thunk the store can start whatever its static type: lets an action dispatched by a
/// thunk or a middleware be recognised as a thunk.
///
/// Not a protocol with a primary associated type: a cast to `any StartableThunk<State>` is
/// resolved by demangling type names at run time, on every action a thunk dispatches. A plain
/// protocol's conformance is cached; the state is then compared as a metatype
/// (``startable(_:for:)``).
protocol StartableThunk: StartedByTheStore {
  /// Starts the thunk on `target`, whose state is the thunk's (``startable(_:for:)`` checked).
  func start<Target: Sendable>(
    on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?)
}

/// The thunk in `action` if it is one for stores of `State`.
///
/// Asks the engine's cache of action types known not to be thunks first, as every dispatch does
/// (`ActionKind`): a thunk's every dispatch asks, and the cast looks the conformance up in the
/// runtime.
func startable<State>(_ action: any Action, for _: State.Type) -> (any StartableThunk)? {
  guard !withUnsafePointer(to: action, ActionKind.isReducible(at:)),
    let thunk = action as? any StartableThunk
  else { return nil }
  return Swift.type(of: thunk).stateType == State.self ? thunk : nil
}

extension Thunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start<Target>(on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?) {
    _ = runner.run(self, on: target.as(State.self), parent: parent)
  }
}

extension AsyncThunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start<Target>(on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?) {
    _ = runner.run(self, on: target.as(State.self), parent: parent)
  }
}

extension ThunkRunner {
  /// The engine's hook for the dispatch a middleware receives: starts thunks of the store's
  /// state instead of reducing them.
  ///
  /// It holds the runner strongly, which makes no cycle (the runner holds its store's core
  /// weakly, through its host): held weakly, the runner's reference counts would move to the
  /// runtime's slower path, which every run pays.
  @usableFromInline
  func route<State: Sendable>() -> StoreCore<State>.Route {
    { [self] action, core in
      guard let thunk = startable(action, for: State.self) else { return false }
      thunk.start(on: .store(.root(core)), runner: self, parent: nil)
      return true
    }
  }

  /// Dispatches `action` for a thunk's run, starting it as a child if it is a thunk.
  func dispatch<State>(_ action: any Action, on engine: Engine<State>, parent: ThunkRun) {
    if let thunk = startable(action, for: State.self) {
      thunk.start(on: .store(engine), runner: self, parent: parent)
    } else {
      engine.dispatchFromGenericCode(action)
    }
  }
}
