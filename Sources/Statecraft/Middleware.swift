/// A function that sends an action into a store.
@preconcurrency public typealias DispatchFunction = @Sendable (any Action) -> Void

/// A function that returns the store's current state, or `nil` once the store is gone.
@preconcurrency public typealias GetState<State> = @Sendable () -> State?

/// A function that sits between ``Store/dispatch(_:)-(Action)`` and the reducer: ReSwift's
/// curried middleware shape.
///
/// The store calls the outer function once, when it is created, with a `dispatch` that sends an
/// action through the whole chain again and a `getState` that reads the committed state. The
/// middle function receives `next`, the rest of the chain; it returns the function that handles
/// each action. The first middleware in the store's array sees each action first.
///
/// A middleware may pass the action on (`next(action)`), swallow it (not call `next`), transform
/// it (`next(other)`), delay it (call `next` later, from any thread), or add actions (`dispatch`).
///
/// ```swift
/// let logging: Middleware<AppState> = { dispatch, getState in
///   { next in
///     { action in
///       print("→", action)
///       next(action)
///     }
///   }
/// }
/// ```
///
/// > Important: A `dispatch` called while the store processes an action is queued and runs after
/// > the current action, never inside it. `next` called synchronously continues the current
/// > action. All three functions reference the store weakly: kept after the store is released,
/// > they do nothing and `getState` returns `nil`.
@preconcurrency public typealias Middleware<State> =
  @Sendable (
    _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
  ) -> (_ next: @escaping DispatchFunction) -> DispatchFunction
