/// What a ``Store`` asks of the engine behind it: a root store's `StoreCore`, or a scope's
/// `ScopeCore`, which forwards to its root's.
///
/// Each engine answers for itself; `Engine` holds either. The path of an action does not come
/// through here: `Engine` calls a root's core directly, compiled for the app's `State`.
@usableFromInline
protocol StoreEngine<State>: AnyObject, Sendable {
  associatedtype State: Sendable

  func dispatch(_ action: any Action)
  /// The committed state; stops the program if there is none (a scope whose root is gone).
  var currentState: State { get }
  /// `dispatch` for generic code: compiled for the app's `State` where the engine can be.
  func dispatchFromGenericCode(_ action: any Action)
  /// The committed state for generic code; `nil` once a scope's root is gone.
  var stateFromGenericCode: State? { get }
  /// Stops the program if the calling thread is running the reducer (C11).
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall)
  /// Whether the calling thread runs the middleware and the reducer that reduce this store's
  /// actions.
  var isTurnHeld: Bool { get }
  var automaticallySkipsRepeats: Bool { get }
  /// The tasks waiting for actions, and the observers of every action: a scope's are its
  /// root's, which reduces its actions; `nil` once a scope's root is gone.
  var commitObservers: (any CommitObserving)? { get }

  @MainActor func register(_ entry: SubscriptionEntry<State>)
  @MainActor func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken
  func removeSubscription(of owner: ObjectIdentifier)
  var subscriptionCounts: (standing: Int, registered: Int) { get }

  /// Reduces the actions `body` dispatches together: a scope's batch is one of its root's.
  func batch(_ body: () -> Void)
  /// The middleware in force; a scope has none.
  var middleware: [Middleware<State>] { get }
  func setMiddleware(_ middleware: [Middleware<State>])
  func setDispatchFunction(_ function: DispatchFunction?)
  /// Reduces `action` without the middleware (ReSwift's `_defaultDispatch`): a scope has no
  /// reducer, so its root's middleware and reducer take it.
  func reduceSkippingMiddleware(_ action: any Action)
  /// The engine of a scope of this store: the part of its state at `keyPath`.
  func scope<Slice: Sendable>(_ keyPath: KeyPath<State, Slice> & Sendable) -> ScopeCore<Slice>
}

/// The engine behind a ``Store``: a root store's own, or a scope's, which forwards to its root's.
///
/// An enum of the two, not the protocol: a root store's dispatch (Dispatch.swift), state read
/// and middleware call its core directly, borrowed and specialized for the app's `State`, and so
/// do the few questions the thunk layer asks on every run. Everything else goes through ``any``,
/// to either engine's own answer.
@usableFromInline @frozen
enum Engine<State: Sendable>: Sendable {
  case root(StoreCore<State>)
  case scope(ScopeCore<State>)

  /// The engine, either kind.
  @inlinable
  var any: any StoreEngine<State> {
    switch self {
    case .root(let core): core
    case .scope(let scope): scope
    }
  }

  // Subscribing: a root's through its closures compiled for the app's `State`, a scope's flow
  // inlined here, so that it is compiled for the app's types too; through `any`, a scope's would
  // run generic code, which looks each of the registry's types up at run time.

  /// Registers a subscriber object's subscription (Registration.swift).
  @MainActor
  @inlinable
  func register(_ entry: SubscriptionEntry<State>) {
    switch self {
    case .root(let core): core.register(entry)
    case .scope(let scope): scope.add(entry)
    }
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @inlinable
  func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken {
    switch self {
    case .root(let core): return core.registerToken(entry)
    case .scope(let scope):
      scope.add(entry)
      return scope.token(for: entry)
    }
  }

  /// Removes the subscription of the subscriber object `owner` names.
  @inlinable
  func removeSubscription(of owner: ObjectIdentifier) {
    switch self {
    case .root(let core): core.removeSubscription(of: owner)
    case .scope(let scope): scope.remove(owner: owner)
    }
  }

  // The thunk layer's questions: a switch, not ``any``, because that code is not specialized for
  // the app's `State`, and making the existential there looks its witness table up at run time.

  /// `dispatch` for generic code: a root's compiled for the app's `State`
  /// (`StoreCore._specialized`).
  func dispatchFromGenericCode(_ action: any Action) {
    switch self {
    case .root(let core): core.dispatchFromGenericCode(action)
    case .scope(let scope): scope.dispatch(action)
    }
  }

  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    switch self {
    case .root(let core): core._reduction.checkNotReducing(call())
    case .scope(let scope): scope.checkNotReducing(call())
    }
  }

  var isTurnHeld: Bool {
    switch self {
    case .root(let core): core.isTurnHeld
    case .scope(let scope): scope.isTurnHeld
    }
  }

  var commitObservers: (any CommitObserving)? {
    switch self {
    case .root(let core): core._reduction._commitObservers
    case .scope(let scope): scope.commitObservers
    }
  }

  // Inlinable down to `StoreCore.setMiddleware`, which says why.
  @inlinable
  func setMiddleware(_ middleware: [Middleware<State>]) {
    switch self {
    case .root(let core): core.setMiddleware(middleware)
    case .scope(let scope): scope.setMiddleware(middleware)
    }
  }
}
