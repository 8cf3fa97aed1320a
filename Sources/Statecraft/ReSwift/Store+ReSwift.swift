import StatecraftPrimitives

// ReSwift's remaining store API, so that a ReSwift app compiles after changing the import.

extension Store: StoreType, _StoreStateReading {
  /// A function called with the state after an asynchronously created action was reduced.
  public typealias DispatchCallback = (State) -> Void

  /// A function that looks at the state and the store and returns an action to dispatch, or
  /// `nil` to dispatch nothing: the action creator of ReSwift's tutorials, which ReSwift
  /// deprecates too.
  ///
  /// The store calls it synchronously inside `dispatch(_:)`, so it need not be `@Sendable`. Use a
  /// ``Thunk`` instead.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public typealias ActionCreator = (_ state: State, _ store: Store) -> (any Action)?

  /// A function that produces an action creator later and passes it to its callback: ReSwift's
  /// asynchronous action creator.
  ///
  /// Use a ``Thunk`` instead: it can `await`, be cancelled and be tested with `ExpectThunk`.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public typealias AsyncActionCreator = (
    _ state: State, _ store: Store, _ actionCreatorCallback: @escaping (ActionCreator) -> Void
  ) -> Void

  /// Calls an action creator with the current state and dispatches the action it returns.
  ///
  /// ```swift
  /// func fetchFilms() -> Store<AppState>.ActionCreator {
  ///   { state, store in
  ///     guard !state.isLoading else { return nil }
  ///     filmService.load { films in store.dispatch(SetFilms(films: films)) }
  ///     return SetLoading(isLoading: true)
  ///   }
  /// }
  ///
  /// mainStore.dispatch(fetchFilms())
  /// ```
  ///
  /// Use a ``Thunk`` instead: `Thunk<AppState> { dispatch, getState in … }` has the same shape,
  /// and can also `await`, be cancelled and be tested with `ExpectThunk`.
  ///
  /// - Parameter actionCreator: The function to call, synchronously, on the calling thread.
  /// - Complexity: The action creator, plus ``dispatch(_:)-(Action)``.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ actionCreator: ActionCreator) {
    _engine.any.checkNotReducing(.dispatchActionCreator)
    if let action = actionCreator(state, self) {
      dispatch(action)
    }
  }

  /// The committed state, for the implicitly unwrapped `state` of ``StoreType``.
  /// - Complexity: O(1), as ``state``.
  public var _committedState: State {
    _engine.currentState
  }

  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// The function every `dispatch` goes through: the middleware chain, then the reducer.
  ///
  /// Reading it gives a function that dispatches to this store, for ReSwift code that passes the
  /// store's dispatch around; it holds the store weakly and does nothing once the store is
  /// released.
  ///
  /// Setting it replaces the middleware chain, as in ReSwift: `dispatch` then calls your
  /// function, on the dispatching thread and in the store's order, and your function reduces an
  /// action by calling `_defaultDispatch(action:)`. A dispatch from inside it is queued and
  /// runs after the current action (C4). Setting `nil`, or setting ``middleware``, puts a chain
  /// of the middleware back.
  ///
  /// ```swift
  /// store.dispatchFunction = { action in
  ///   log.append(action)
  ///   store._defaultDispatch(action: action)
  /// }
  /// ```
  /// - Complexity: O(1) to get and to set; each call is a ``dispatch(_:)-(Action)``.
  public var dispatchFunction: DispatchFunction! {
    get {
      return { [weak engine = _engine.any] action in engine?.dispatchFromGenericCode(action) }
    }
    set { _engine.any.setDispatchFunction(newValue) }
  }

  /// Reduces `action` without the middleware, then notifies subscribers: ReSwift's last step of
  /// ``dispatchFunction``.
  ///
  /// Called from a ``dispatchFunction`` you set, or from a middleware, it reduces at once, in the
  /// turn of the action being processed. Called anywhere else it takes its own turn, like a
  /// dispatch that skips the middleware. From inside a reducer it stops the program with a
  /// message (C11).
  ///
  /// - Parameter action: The action to reduce.
  /// - Complexity: O(1) plus the reducer; on the main queue, one notification round.
  public func _defaultDispatch(action: any Action) {
    _engine.any.reduceSkippingMiddleware(action)
  }

  /// The store's middleware, first one first; setting it rebuilds the chain, as in ReSwift.
  ///
  /// The new chain processes the actions dispatched after the setter returns; an action being
  /// processed finishes in the chain it started in. Each chain built stays in memory until the
  /// store is released, so set the middleware at setup, not per action.
  ///
  /// ```swift
  /// store.middleware = [loggingMiddleware, createThunkMiddleware()]
  /// ```
  /// - Complexity: O(m) to set, for m middleware; O(m) to get.
  @inlinable
  public var middleware: [Middleware<State>] {
    get { _engine.any.middleware }
    set { _engine.setMiddleware(newValue) }  // inlinable down to `setMiddleware`, which says why
  }

  /// Calls an asynchronous action creator; dispatches the action of the creator it passes back.
  ///
  /// ReSwift 6.1 deprecates it too. The creator is called at once, on the calling thread, with
  /// the current state; it may call its callback later, from any thread.
  ///
  /// - Parameter asyncActionCreator: The function to call.
  /// - Complexity: The creator, plus a ``dispatch(_:)-(Action)`` when it calls back.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ asyncActionCreator: AsyncActionCreator) {
    dispatch(asyncActionCreator, callback: nil)
  }

  /// Calls an asynchronous action creator, then `callback` with the state once the action of
  /// the creator it passes back was reduced.
  ///
  /// The callback runs on the thread that called back, after the action was reduced; the state
  /// it receives includes that action and possibly later ones from other threads. If the
  /// creator passed back returns `nil`, neither the action nor the callback happens.
  ///
  /// - Parameters:
  ///   - asyncActionCreator: The function to call.
  ///   - callback: Called with the state after the action was reduced.
  /// - Complexity: The creator, plus a ``dispatch(_:)-(Action)`` when it calls back.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ asyncActionCreator: AsyncActionCreator, callback: DispatchCallback?) {
    _engine.any.checkNotReducing(.dispatchActionCreator)
    asyncActionCreator(state, self) { [self] actionCreator in
      guard let action = actionCreator(state, self) else { return }
      dispatch(action)
      callback?(state)
    }
  }
}

/// The init action's name in ReSwift, for reducers that match it; ``StatecraftInit`` in new
/// code.
public typealias ReSwiftInit = StatecraftInit
