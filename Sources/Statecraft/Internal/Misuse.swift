/// The programming errors the store stops on, each with a message that names the action and
/// says what to do instead.
@usableFromInline
enum Misuse {
  /// A store method called from inside a reducer, for the message.
  @usableFromInline
  enum StoreCall {
    case dispatch(any Action)
    case dispatchActionCreator
    case readState
    case method(String)
  }

  @usableFromInline
  static func calledFromReducer(_ call: StoreCall, reducing: (any Action.Type)?) -> Never {
    let reducing = "while reducing \(describe(reducing))"
    switch call {
    case .dispatch(let action):
      fatalError(
        """
        Statecraft: dispatch(\(describe(action))) was called from inside a reducer (\(reducing)). \
        Reducers must be pure functions of the action and the state. Dispatch follow-up actions \
        from a middleware or a thunk instead.
        """
      )
    case .dispatchActionCreator:
      fatalError(
        """
        Statecraft: dispatch was called with an action creator from inside a reducer \
        (\(reducing)). Reducers must be pure functions of the action and the state. Dispatch \
        follow-up actions from a middleware or a thunk instead.
        """
      )
    case .readState:
      fatalError(
        """
        Statecraft: Store.state was read from inside a reducer (\(reducing)). A reducer receives \
        the state as its parameter; read other data in a middleware or a thunk and pass it in \
        the action.
        """
      )
    case .method(let name):
      fatalError(
        """
        Statecraft: Store.\(name) was called from inside a reducer (\(reducing)). Reducers must \
        be pure functions of the action and the state and may not call the store. Call it from \
        a middleware, a thunk, a subscriber or a view instead.
        """
      )
    }
  }

  /// A store method called from a subscription's selector or filter, which a round runs under
  /// the state lock (C11, C13).
  @usableFromInline
  static func calledFromSelector(_ call: StoreCall) -> Never {
    let name =
      switch call {
      case .dispatch(let action): "dispatch(\(describe(action)))"
      case .dispatchActionCreator: "dispatch (an action creator)"
      case .readState: "Store.state"
      case .method(let name): "Store.\(name)"
      }
    fatalError(
      """
      Statecraft: \(name) was called from a subscription's selector or filter. Selectors and \
      filters run while the store holds its state lock, so that no commit copies the state; \
      they receive the state as their parameter and may not call the store. Read the state \
      there, and dispatch from the subscriber's newState or a receive closure instead.
      """
    )
  }

  @usableFromInline
  static func runaway(_ action: any Action, limit: Int) -> Never {
    fatalError(
      """
      Statecraft: more than \(limit) actions were dispatched in one chain of dispatches (from \
      subscribers or middleware, each reacting to the state the one before made); the last was \
      \(describe(action)). Something dispatches on every change, an endless loop. Dispatch only \
      when the value you react to has changed.
      """
    )
  }

  /// A thunk of the store's state reached the reducer: it was dispatched as `any Action` to a
  /// store without the thunk middleware, and would otherwise be lost.
  @usableFromInline
  static func thunkReachedReducer(_ action: any Action) -> Never {
    fatalError(
      """
      Statecraft: the thunk \(describe(action)) reached the reducer: a middleware passed it to \
      `next`, or `_defaultDispatch` was given it. Dispatch a thunk (store.dispatch(thunk), or a \
      middleware's `dispatch`): the store runs it, whatever its static type.
      """
    )
  }

  @usableFromInline
  static func middlewareOnAScope(_ state: Any.Type) -> Never {
    fatalError(
      """
      Statecraft: middleware (or a dispatchFunction) was set on a scope of \(state). A scope \
      sends every action to the store it scopes, whose middleware and reducer handle it: set \
      the middleware of that store instead.
      """
    )
  }

  static func wholeStateSubscriber(
    _ subscriber: Any.Type, receives selected: Any.Type, of state: Any.Type
  ) -> Never {
    fatalError(
      """
      Statecraft: subscribe(_:transform: nil) was called with a \(subscriber), which receives \
      \(selected), on a store of \(state). Without a transform a subscriber receives the whole \
      state: pass a transform that selects a \(selected), or subscribe a subscriber of \(state).
      """
    )
  }

  @usableFromInline
  static func noState() -> Never {
    fatalError(
      """
      Statecraft: the store has no state: a reducer stopped while it ran, or this store is a \
      scope whose root store was released. Keep the root store (a global, for example) while \
      you use its scopes.
      """)
  }

  private static func describe(_ action: any Action) -> String {
    let value = String(describing: action)
    let type = String(describing: Swift.type(of: action))
    let text = value.hasPrefix(type) ? value : "\(type).\(value)"
    return text.count > 200 ? String(text.prefix(200)) + "…" : text
  }

  private static func describe(_ type: (any Action.Type)?) -> String {
    type.map { String(describing: $0) } ?? "an action"
  }
}

/// Where Statecraft reports suspicious uses in debug builds.
public enum StatecraftDiagnostics {
  /// Receives warnings, such as a selector that can never hit its cache.
  ///
  /// The default prints them. A task-local, so a test can capture the warnings of its own code:
  ///
  /// ```swift
  /// let warnings = Warnings()
  /// StatecraftDiagnostics.$warningHandler.withValue({ warnings.append($0) }, operation: {
  ///   _ = createSelector(…)
  /// })
  /// ```
  /// - Complexity: O(1) to read; the handler runs once per warning.
  @TaskLocal public static var warningHandler: @Sendable (String) -> Void = { message in
    print("Statecraft warning: \(message)")
  }

  @usableFromInline
  static func warn(_ message: String) {
    warningHandler(message)
  }

  /// The warning for a reduction of `action` on the main queue that took `duration`
  /// nanoseconds, more than `limit`.
  @usableFromInline
  static func slowReduction(of action: any Action, took duration: UInt64, limit: UInt64) -> String {
    let type = Swift.type(of: action)
    return """
      reducing \(type) took \(Interval(nanoseconds: duration)) on the main queue, more than \
      \(Interval(nanoseconds: limit)): the app's UI waits while a reducer runs. Move the slow work \
      out of the reducer: compute it in a Thunk and dispatch its result, or keep large collections \
      with an in-place reducer. StatecraftDiagnostics.developmentChecks.slowReduction sets the \
      limit (nil switches this check off).
      """
  }

  /// The warning for `action`'s type reduced more than `limit` times within a second.
  @usableFromInline
  static func actionStorm(of action: any Action, limit: UInt64) -> String {
    let type = Swift.type(of: action)
    return """
      \(type) was dispatched more than \(limit) times within a second, usually a subscriber or \
      a listener that dispatches it on every state it receives, which makes a new state, and so \
      on. Dispatch it only when what it depends on changes (skipRepeats, or compare in newState), \
      or gather a burst in store.batch { … }. StatecraftDiagnostics.developmentChecks \
      .actionStormLimit sets the limit (nil switches this check off).
      """
  }

  /// Warns that a subscription delivers every state, because what it selects cannot be compared.
  @usableFromInline
  static func warnEverySelection(of selected: Any.Type) {
    warn(
      """
      a subscription selects \(selected), which is not Equatable, so the store cannot skip \
      repeated values: its subscriber receives every committed state. Make \(selected) \
      Equatable, or add .skipRepeats { old, new in … } after the select.
      """)
  }
}
