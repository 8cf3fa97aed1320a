/// The programming errors the store stops on, each with a message that names the action and
/// says what to do instead.
@usableFromInline
enum Misuse {
  @usableFromInline
  static func dispatchInReducer(_ action: any Action, reducing: (any Action.Type)?) -> Never {
    fatalError(
      """
      Statecraft: dispatch(\(describe(action))) was called from inside a reducer \
      (while reducing \(describe(reducing))). Reducers must be pure functions of the action and \
      the state. Dispatch follow-up actions from a middleware or a thunk instead.
      """
    )
  }

  @usableFromInline
  static func stateReadInReducer(reducing: (any Action.Type)?) -> Never {
    fatalError(
      """
      Statecraft: Store.state was read from inside a reducer (while reducing \
      \(describe(reducing))). A reducer receives the state as its parameter; read other data in \
      a middleware or a thunk and pass it in the action.
      """
    )
  }

  static func subscribeInReducer(reducing: (any Action.Type)?) -> Never {
    fatalError(
      """
      Statecraft: subscribe was called from inside a reducer (while reducing \
      \(describe(reducing))), which would wait forever for the state the reducer is computing. \
      Subscribe from a view or from a middleware instead.
      """
    )
  }

  @usableFromInline
  static func runaway(_ action: any Action, limit: Int) -> Never {
    fatalError(
      """
      Statecraft: more than \(limit) actions were dispatched from inside one dispatch (from \
      subscribers or middleware); the last was \(describe(action)). Something dispatches on every \
      change, an endless loop. Dispatch only when the value you react to has changed.
      """
    )
  }

  /// Stops if `action` is a thunk: one that reached the reducer was dispatched as a plain action to
  /// a store without the thunk middleware, and would otherwise be lost.
  ///
  /// Debug builds only: the check costs a dynamic cast per action.
  @usableFromInline
  static func checkNotThunk(_ action: any Action) {
    guard action is any StartableThunk else { return }
    fatalError(
      """
      Statecraft: the thunk \(describe(action)) reached the reducer. It was dispatched as \
      `any Action` to a store without the thunk middleware. Dispatch it with its own type \
      (store.dispatch(thunk)), or add createThunkMiddleware() to the store's middleware.
      """
    )
  }

  @usableFromInline
  static func noState() -> Never {
    fatalError("Statecraft: the store has no state; a reducer stopped while it ran.")
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
