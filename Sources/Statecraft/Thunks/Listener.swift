/// Work to start when an action is reduced or the state changes: Redux Toolkit's listener.
///
/// A listener's effect runs as a thunk of the store, so it has everything a thunk has: a
/// ``ThunkContext`` with `take`, `condition`, the environment and the clock, an id with a
/// ``ThunkPolicy``, and cancellation when the store is released.
///
/// A listener lives in the middleware chain, before the reducer: it sees the actions that reach
/// its place in the chain (a middleware before it that swallows an action hides it), and starts
/// its effect once the rest of the chain, the reducer included, has returned. What sees actions
/// after their commit, whatever the middleware, is ``ThunkContext/take(_:where:timeout:)``,
/// ``ThunkContext/condition(_:timeout:)`` and ``Store/actions()``.
///
/// ```swift
/// let mainStore = Store<AppState>(
///   reducer: appReducer, state: nil,
///   middleware: [
///     createListenerMiddleware(
///       .on(LoggedIn.self) { login, context in
///         context.dispatch(LoadProfile(user: login.user))
///       },
///       .when({ $0.query != $1.query }, id: "search", policy: .debounce(.milliseconds(300))) {
///         context in
///         let results = try await context.environment[SearchKey.self].search(context.state?.query ?? "")
///         context.dispatch(SetResults(results))
///       }
///     )
///   ])
/// ```
public struct Listener<State: Sendable>: Sendable {
  /// For a listener of a value type: that type, which the middleware compares with the
  /// action's own, calling nothing; `nil` to ask `_mayStart`.
  @usableFromInline let _listened: ObjectIdentifier?
  /// Whether the listener may start for `action`: a test that needs no state, and no generic
  /// code (its metadata lookups cost more than the rest of a dispatch).
  @usableFromInline let _mayStart: @Sendable (any Action) -> Bool
  /// Returns the thunk to start for an action, given the states before and after it.
  @usableFromInline let _start:
    @Sendable (_ action: any Action, _ before: () -> State?, _ after: () -> State?) -> Thunk<
      State
    >?
  /// Whether the listener compares states, so the middleware reads the state before the action.
  @usableFromInline let _needsPreviousState: Bool

  /// Starts `effect` after each reduced action of type `type` that `predicate` accepts.
  ///
  /// - Parameters:
  ///   - type: The type of action to listen for.
  ///   - predicate: Accepts the action; called on the dispatching thread, so keep it short.
  ///   - id: An identifier for the effect's runs, for `policy` and ``Store/cancelThunks(id:)``.
  ///   - policy: What a new run does while others with the same `id` run.
  ///   - effect: The work, run as a thunk with the action.
  /// - Returns: The listener.
  /// - Complexity: Per dispatched action: one comparison of types (a dynamic cast for classes).
  public static func on<Listened: Action>(
    _ type: Listened.Type,
    where predicate: @escaping @Sendable (Listened) -> Bool = { _ in true },
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ effect: @escaping @Sendable (Listened, ThunkContext<State>) async throws -> Void
  ) -> Listener {
    // Value types compare type identities, far cheaper than a dynamic cast of the existential
    // (benchmark h). Classes keep the cast, which also matches subclasses.
    let listened = ObjectIdentifier(Listened.self)
    let isClass = Listened.self is AnyObject.Type
    return Listener(
      _listened: isClass ? nil : listened,
      _mayStart: { action in isClass || ObjectIdentifier(Swift.type(of: action)) == listened },
      _start: { action, _, _ in
        guard let action = action as? Listened, predicate(action) else { return nil }
        return Thunk(id: id, policy: policy) { context in try await effect(action, context) }
      },
      _needsPreviousState: false)
  }

  /// Starts `effect` after each action for which `predicate` holds on the states before and
  /// after it, such as "the query changed".
  ///
  /// - Parameters:
  ///   - predicate: Tests the committed states before and after the action.
  ///   - id: An identifier for the effect's runs, for `policy` and ``Store/cancelThunks(id:)``.
  ///   - policy: What a new run does while others with the same `id` run.
  ///   - effect: The work, run as a thunk.
  /// - Returns: The listener.
  /// - Complexity: Per dispatched action: two reads of the committed state and the predicate.
  public static func when(
    _ predicate: @escaping @Sendable (_ previous: State, _ current: State) -> Bool,
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    _ effect: @escaping @Sendable (ThunkContext<State>) async throws -> Void
  ) -> Listener {
    Listener(
      _listened: nil,
      _mayStart: { _ in true },
      _start: { _, before, after in
        guard let previous = before(), let current = after(), predicate(previous, current) else {
          return nil
        }
        return Thunk(id: id, policy: policy, effect)
      },
      _needsPreviousState: true)
  }
}

/// Creates a middleware that starts the listeners' effects after the actions they listen for
/// are reduced: Redux Toolkit's `createListenerMiddleware`.
///
/// Put it in a store's middleware: the effects run as the store's thunks. An action no listener
/// matches costs one dynamic cast per action listener; state listeners read the state before
/// and after each action.
///
/// - Parameter listeners: The listeners, checked in order after each action.
/// - Returns: The middleware.
/// - Complexity: O(l) per action for l listeners, plus the effects started.
@inlinable
public func createListenerMiddleware<State: Sendable>(_ listeners: Listener<State>...)
  -> Middleware<State>
{
  // Inlinable, so that the middleware is specialized for the app's `State` like the rest of the
  // dispatch path (benchmark h). The loop runs over non-generic closures: iterating the
  // listeners themselves would look up generic metadata on every dispatch.
  let listened = listeners.map(\._listened)
  let mayStart = listeners.map(\._mayStart)
  guard listeners.contains(where: \._needsPreviousState) else {
    return { dispatch, getState in
      { next in
        { action in
          next(action)
          let type = typeIdentifier(of: action)
          for index in listened.indices {
            if let listened = listened[index] {
              guard listened == type else { continue }
            } else if !mayStart[index](action) {
              continue
            }
            if let thunk = listeners[index]._start(action, { nil }, getState) { dispatch(thunk) }
          }
        }
      }
    }
  }
  return { dispatch, getState in
    { next in
      { action in
        let before = getState()
        next(action)
        for index in mayStart.indices where mayStart[index](action) {
          if let thunk = listeners[index]._start(action, { before }, getState) { dispatch(thunk) }
        }
      }
    }
  }
}
