/// Creates ReSwift-Thunk's middleware, which runs the thunks that reach it.
///
/// A store already runs every thunk dispatched to it, whatever its static type, so in a store
/// this middleware has nothing left to do; it stays for ReSwift-Thunk code that installs it.
///
/// Called outside a store, in a chain built by hand or by a test, it runs each thunk of `State`
/// itself with the `dispatch` and `getState` it was handed, ReSwift-Thunk's contract: a body that
/// does not `await` runs, and its run ends, before the middleware returns, with no task; an
/// `async` body runs in a new task.
/// There the thunk has no store, so ``ThunkContext/take(where:timeout:)`` and
/// ``ThunkContext/condition(_:timeout:)`` throw `CancellationError`.
///
/// A thunk of another state type goes to `next`, as in ReSwift, with a warning in debug builds
/// through ``StatecraftDiagnostics/warningHandler``.
///
/// ```swift
/// let chain = createThunkMiddleware()(dispatch, getState)(next)
/// chain(fetchFilms)  // runs fetchFilms with dispatch and getState
/// ```
///
/// - Returns: The middleware.
/// - Complexity: O(1) per action: one dynamic cast.
public func createThunkMiddleware<State: Sendable>() -> Middleware<State> {
  { dispatch, getState in
    let inStore = StoreChain.isBuilding
    let runner = ThunkRunner()
    // Outside a store only: in one, the store's dispatch starts thunks with its own runner.
    let handed = inStore ? nil : ThunkHost(handed: dispatch, getState: getState)
    return { next in
      { action in
        guard action is any StartedByTheStore else {
          next(action)
          return
        }
        guard let thunk = startable(action, for: State.self) else {
          #if DEBUG
            StatecraftDiagnostics.warn(
              """
              Statecraft: the thunk \(type(of: action)) reached createThunkMiddleware() of a store \
              of \(State.self) and was passed on unrun. Dispatch it to a store of its own state.
              """)
          #endif
          next(action)
          return
        }
        if let handed {
          thunk.start(on: .handed(handed), runner: runner, parent: nil)
        } else {
          dispatch(action)
        }
      }
    }
  }
}
