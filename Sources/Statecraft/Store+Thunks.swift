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
  /// A thunk passed as `any Action` (for example in an array of actions) runs the same way: the
  /// store recognizes it whatever its static type, without ``createThunkMiddleware()``.
  ///
  /// - Parameter thunk: The thunk to run.
  /// - Returns: The running thunk: await its value, or cancel it.
  /// - Complexity: O(1) plus the body when it does not `await`, which starts no task unless
  ///   it dispatched thunks that still run; an `async` body runs in a new task.
  @discardableResult
  public func dispatch(_ thunk: Thunk<State>) -> ThunkTask<Void> {
    _thunks.run(thunk, on: .store(_engine), parent: nil)
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
    _thunks.run(thunk, on: .store(_engine), parent: nil)
  }

  /// Cancels every running thunk with the identifier `id`.
  ///
  /// Actions those thunks dispatch from now on are dropped. The `cancelled` lifecycle action of
  /// each ``AsyncThunk`` among them is dispatched before this returns.
  ///
  /// - Parameter id: The identifier the thunks were created with.
  /// - Complexity: O(r) for r running thunks.
  public func cancelThunks(id: ThunkID) {
    _engine.checkNotReducing(.method("cancelThunks(id: \(id))"))
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
    set { _thunks.environment = newValue }
  }

  /// Receives the errors thunks throw, other than cancellation.
  ///
  /// An error never escapes a thunk: it is thrown from ``ThunkTask/value``, an ``AsyncThunk``
  /// dispatches it in its `rejected` lifecycle action, and it is passed here. The default
  /// prints it in debug builds; set `nil` to ignore errors.
  /// - Complexity: O(1).
  public var thunkErrorHandler: (@Sendable (any Error) -> Void)? {
    get { _thunks.errorHandler }
    set { _thunks.errorHandler = newValue }
  }
}
