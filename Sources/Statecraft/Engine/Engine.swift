import Dispatch

/// The engine behind a ``Store``: a root store's own, or a scope's, which forwards to its root's.
@usableFromInline @frozen
enum Engine<State: Sendable>: Sendable {
  case root(StoreCore<State>)
  case scope(ScopeCore<State>)
}

// MARK: - What the layers above ask of either engine

// The entry on the path of an action, `dispatch`, and the state's read are in Dispatch.swift.

extension Engine {
  /// ``StoreCore/dispatch(_:)`` for generic code (see `StoreCore._specialized`).
  func dispatchFromGenericCode(_ action: any Action) {
    switch self {
    case .root(let core): core.dispatchFromGenericCode(action)
    case .scope(let scope): scope.dispatch(action)
    }
  }

  /// The committed state for generic code; `nil` once a scope's root is gone.
  var stateFromGenericCode: State? {
    switch self {
    case .root(let core): core.stateFromGenericCode
    case .scope(let scope): scope.snapshot?.state
    }
  }

  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    switch self {
    case .root(let core): core._reduction.checkNotReducing(call())
    case .scope(let scope): scope.checkNotReducing(call())
    }
  }

  /// Whether the calling thread runs the middleware and the reducer that reduce this store's
  /// actions.
  var isTurnHeld: Bool {
    switch self {
    case .root(let core): core.isTurnHeld
    case .scope(let scope): scope.root?.isTurnHeld ?? false
    }
  }

  @usableFromInline
  var automaticallySkipsRepeats: Bool {
    switch self {
    case .root(let core): core._automaticallySkipsRepeats
    case .scope(let scope): scope.automaticallySkipsRepeats
    }
  }

  /// The tasks waiting for actions, and the observers of every action.
  ///
  /// A scope's are its root's, which reduces its actions; `nil` once a scope's root is gone.
  var listeners: (any ActionListening)? {
    switch self {
    case .root(let core): core._reduction._listeners
    case .scope(let scope): scope.root?.listeners
    }
  }

  @MainActor @usableFromInline
  func register(_ entry: SubscriptionEntry<State>) {
    switch self {
    case .root(let core): core.register(entry)
    case .scope(let scope): scope.register(entry)
    }
  }

  @MainActor @usableFromInline
  func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken {
    switch self {
    case .root(let core): core.registerToken(entry)
    case .scope(let scope): scope.registerToken(entry)
    }
  }

  func removeSubscription(of owner: ObjectIdentifier) {
    switch self {
    case .root(let core): core.removeSubscription(of: owner)
    case .scope(let scope): scope.removeSubscription(of: owner)
    }
  }

  var subscriptionCounts: (standing: Int, registered: Int) {
    switch self {
    case .root(let core): core.subscriptionCounts
    case .scope(let scope): scope.subscriptionCounts
    }
  }

  /// Reduces the actions `body` dispatches together: a scope's batch is one of its root's.
  func batch(_ body: () -> Void) {
    switch self {
    case .root(let core):
      core.batch(body)
    case .scope(let scope):
      scope.checkNotReducing(.method("batch"))
      if let root = scope.root { root.batch(body) } else { body() }
    }
  }

  /// The middleware in force; a scope has none.
  @usableFromInline
  var middleware: [Middleware<State>] {
    switch self {
    case .root(let core): core.middleware
    case .scope: []
    }
  }

  @inlinable
  func setMiddleware(_ middleware: [Middleware<State>]) {
    switch self {
    case .root(let core): core.setMiddleware(middleware)
    case .scope(let scope): scope.setMiddleware(isEmpty: middleware.isEmpty)
    }
  }

  func setDispatchFunction(_ function: DispatchFunction?) {
    switch self {
    case .root(let core): core.setDispatchFunction(function)
    case .scope(let scope):
      scope.checkNotReducing(.method("dispatchFunction"))
      if function != nil { Misuse.middlewareOnAScope(State.self) }
    }
  }

  /// Reduces `action` without the middleware (ReSwift's `_defaultDispatch`): a scope has no
  /// reducer, so its root's middleware and reducer take it.
  func reduceSkippingMiddleware(_ action: any Action) {
    switch self {
    case .root(let core): core.reduceSkippingMiddleware(action)
    case .scope(let scope): scope.dispatch(action)
    }
  }

  /// The engine's object, held weakly.
  var weakly: WeakEngine<State> {
    switch self {
    case .root(let core): WeakEngine(root: core)
    case .scope(let scope): WeakEngine(scope: scope)
    }
  }
}

/// An engine held weakly: a running thunk and a function handed out do not keep a released store
/// alive.
struct WeakEngine<State: Sendable>: Sendable {
  private weak var root: StoreCore<State>?
  private weak var scope: ScopeCore<State>?

  init(root: StoreCore<State>? = nil, scope: ScopeCore<State>? = nil) {
    self.root = root
    self.scope = scope
  }

  var engine: Engine<State>? {
    if let root { return .root(root) }
    if let scope { return .scope(scope) }
    return nil
  }
}
