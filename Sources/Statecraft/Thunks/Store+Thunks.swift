extension Store {
  /// Runs a thunk and returns its task.
  ///
  /// The store runs thunks itself: no middleware is needed. A thunk whose body does not
  /// `await` runs before this returns, as in ReSwift-Thunk; an `async` body runs in a new task,
  /// which starts on the calling thread when that is not the main queue (see ``Thunk``).
  ///
  /// ```swift
  /// mainStore.dispatch(fetchFilms)                 // fire and forget
  /// try await mainStore.dispatch(fetchFilms).value // or wait for it and what it dispatched
  /// ```
  ///
  /// > Important: A thunk passed as `any Action` (for example in an array of actions) goes
  /// > through the middleware like any action: install ``createThunkMiddleware()`` to run such
  /// > thunks. In debug builds, a thunk that reaches the reducer stops the program with a
  /// > message that says so.
  ///
  /// - Parameter thunk: The thunk to run.
  /// - Returns: The running thunk: await its value, or cancel it.
  /// - Complexity: O(1) plus the body when it does not `await`; an `async` body runs in a new
  ///   task.
  @discardableResult
  public func dispatch(_ thunk: Thunk<State>) -> ThunkTask<Void> {
    _thunks.run(thunk, on: .store(_core), parent: nil)
  }

  /// Runs a thunk that produces a value, dispatching its lifecycle actions, and returns its
  /// task.
  ///
  /// ```swift
  /// let user = try await mainStore.dispatch(loadUser(id: 7)).value
  /// ```
  ///
  /// - Parameter thunk: The thunk to run.
  /// - Returns: The running thunk: await its value, or cancel it.
  /// - Complexity: O(1) plus one dispatch of the `pending` action; the body runs in a new task.
  @discardableResult
  public func dispatch<Value>(_ thunk: AsyncThunk<State, Value>) -> ThunkTask<Value> {
    _thunks.run(thunk, on: .store(_core), parent: nil)
  }

  /// Cancels every running thunk with the identifier `id`.
  ///
  /// Actions those thunks dispatch from now on are dropped. The `cancelled` lifecycle action of
  /// each ``AsyncThunk`` among them is dispatched before this returns.
  ///
  /// - Parameter id: The identifier the thunks were created with.
  /// - Complexity: O(r) for r running thunks.
  public func cancelThunks(id: ThunkID) {
    _core._reduction.checkNotReducing(.method("cancelThunks(id: \(id))"))
    _thunks.cancel(id: id)
  }

  /// The values thunks read through ``ThunkContext/environment``, such as services.
  ///
  /// Set it at app start, and replace values in tests:
  ///
  /// ```swift
  /// mainStore.thunkEnvironment[FilmServiceKey.self] = StubFilmService()
  /// ```
  /// - Complexity: O(1): a lock and a copy of the environment's dictionary (a reference count).
  public var thunkEnvironment: ThunkEnvironment {
    get { _thunks.environment }
    set { _thunks.environmentStorage.withLock { $0 = newValue } }
  }

  /// Receives the errors thunks throw, other than cancellation.
  ///
  /// An error never escapes a thunk: it is thrown from ``ThunkTask/value``, an ``AsyncThunk``
  /// dispatches it in its `rejected` lifecycle action, and it is passed here. The default
  /// prints it in debug builds; set `nil` to ignore errors.
  /// - Complexity: O(1).
  public var thunkErrorHandler: (@Sendable (any Error) -> Void)? {
    get { _thunks.errorHandler.withLock { $0 } }
    set { _thunks.errorHandler.withLock { $0 = newValue } }
  }
}

/// Creates ReSwift-Thunk's middleware, which runs the thunks that reach it.
///
/// The store already runs thunks dispatched as ``Thunk`` or ``AsyncThunk``; in a store, this
/// middleware catches those that were type-erased on the way, at its place in the chain, and
/// hands them to the store, so they can be awaited and cancelled like any other.
///
/// Called outside a store, in a chain built by hand or by a test, it runs each thunk of `State`
/// itself with the `dispatch` and `getState` it was handed, ReSwift-Thunk's contract: a body that
/// does not `await` runs before the middleware returns; an `async` body runs in a new task.
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
        if inStore {
          dispatch(action)  // the store's dispatch starts thunks with its own runner
        } else {
          thunk.start(
            on: .handed(dispatch: dispatch, getState: getState), runner: runner, parent: nil)
        }
      }
    }
  }
}

extension Store {
  /// Dispatches the actions of an asynchronous sequence, in order, as they arrive: several
  /// state changes from one piece of async work, like ReactorKit's `mutate`.
  ///
  /// ```swift
  /// func search(_ query: String) -> AsyncStream<SearchAction> {
  ///   AsyncStream { continuation in
  ///     continuation.yield(.setLoading(true))
  ///     …
  ///   }
  /// }
  /// mainStore.dispatch(search("hope"), id: "search", policy: .cancelPrevious)
  /// ```
  ///
  /// - Parameters:
  ///   - actions: The actions; iterated in a new task, off the main actor.
  ///   - id: An identifier to cancel the iteration by; see ``cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  /// - Returns: The running iteration: await it to know every action was dispatched, or cancel
  ///   it to stop; no action is dispatched after it is cancelled.
  /// - Complexity: O(1); the sequence is iterated in a new task.
  @discardableResult
  public func dispatch<Actions: AsyncSequence & Sendable>(
    _ actions: Actions, id: ThunkID? = nil, policy: ThunkPolicy = .concurrent
  ) -> ThunkTask<Void> where Actions.Element: Action {
    _core._reduction.checkNotReducing(.method("dispatch(_:) of the AsyncSequence \(Actions.self)"))
    return dispatch(
      Thunk(id: id, policy: policy) { context in
        for try await action in actions {
          try context.checkCancellation()
          context.dispatch(action)
        }
      })
  }

  /// Dispatches the actions of an asynchronous sequence of actions of different types, in
  /// order, as they arrive.
  ///
  /// ```swift
  /// let steps = AsyncStream<any Action> { continuation in
  ///   continuation.yield(SetLoading(isLoading: true))
  ///   continuation.yield(SetFilms(films: films))
  ///   continuation.finish()
  /// }
  /// mainStore.dispatch(steps)
  /// ```
  ///
  /// - Parameters:
  ///   - actions: The actions; iterated in a new task, off the main actor.
  ///   - id: An identifier to cancel the iteration by; see ``cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  /// - Returns: The running iteration, as for a sequence of one action type.
  /// - Complexity: O(1); the sequence is iterated in a new task.
  @discardableResult
  public func dispatch<Actions: AsyncSequence & Sendable>(
    _ actions: Actions, id: ThunkID? = nil, policy: ThunkPolicy = .concurrent
  ) -> ThunkTask<Void> where Actions.Element == any Action {
    _core._reduction.checkNotReducing(.method("dispatch(_:) of the AsyncSequence \(Actions.self)"))
    return dispatch(
      Thunk(id: id, policy: policy) { context in
        for try await action in actions {
          try context.checkCancellation()
          context.dispatch(action)
        }
      })
  }
}
