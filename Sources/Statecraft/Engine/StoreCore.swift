import Dispatch
import StatecraftPrimitives

/// The engine behind ``Store``: dispatch → middleware → reduce → commit → notify, top to bottom.
///
/// Each piece of mutable state has one owner:
/// - the committed state and its version: `Reduction`, behind the state lock;
/// - the turn to run middleware and the reducer, and the thread that has it: `ProcessLock`;
/// - the one queue of deferred work, the subscriptions, the middleware and its chains:
///   `Books`, behind the bookkeeping lock, a leaf;
/// - the main-queue rounds and the mark that one is due: `MainLoop`.
///
/// This file builds the core and its middleware chain; an action's way through it starts in
/// Dispatch.swift. `Docs/ConcurrencyModel.md` states the invariants (C1-C17);
/// `Docs/Architecture.md` walks one action through the files of `Engine/` in order.
///
/// The middleware chain is read without a lock: the `chain` word holds the address of an
/// immutable box, and a new `middleware` array installs a new box. Replaced boxes live as long as the core,
/// because a thread may still be running the chain it read (C16).
@usableFromInline
final class StoreCore<State: Sendable>: StoreEngine {
  /// Sends a dispatched action somewhere other than the reducer: a thunk to its runner, whatever
  /// the static type it was dispatched as.
  ///
  /// Returns whether it did. The one hook the layers above the engine have into it.
  @usableFromInline
  typealias Route = @Sendable (any Action, StoreCore<State>) -> Bool

  @usableFromInline let _reduction: Reduction<State>
  @usableFromInline let _processLock: ProcessLock
  @usableFromInline let _mainLoop: MainLoop<State>
  @usableFromInline let _books: Locked<Books<State>>
  /// The store's atomic words, shared with its parts.
  @usableFromInline let _words: StoreWords
  @usableFromInline let _reentrantDispatchLimit: Int
  @usableFromInline let _automaticallySkipsRepeats: Bool
  /// Set when the reducer is main-actor isolated: it runs only on the main queue, so work from
  /// other threads waits in the `mainActor` lane (C17).
  @usableFromInline let _reducesOnMainActor: Bool
  @usableFromInline let _route: Route?
  /// `dispatch` and the state's read compiled for the app's `State`, for the thunk layer.
  ///
  /// Built in inlinable code, so specialized; the thunk layer's generic code calls them instead
  /// of running the dispatch path unspecialized. The closures capture nothing: the caller passes
  /// the core it holds.
  @usableFromInline let _specialized: Specialized

  @usableFromInline @frozen
  struct Specialized: Sendable {
    @usableFromInline let _dispatch: @Sendable (StoreCore<State>, any Action) -> Void
    @usableFromInline let _state: @Sendable (StoreCore<State>) -> State?
    /// Subscribing and unsubscribing (Registration.swift).
    @usableFromInline let _add:
      @MainActor @Sendable (StoreCore<State>, SubscriptionEntry<State>) -> Void
    @usableFromInline let _remove: @Sendable (StoreCore<State>, ObjectIdentifier) -> Void
    /// Where the runner's thunks run in this store, and the `getState` a body receives
    /// (`StoreCore.thunkHostFunction`, `StoreCore.thunkGetStateFunction`).
    @usableFromInline let _thunkHost: @Sendable (StoreCore<State>, ThunkRunner) -> ThunkHost<State>
    @usableFromInline let _thunkGetState: @Sendable (StoreCore<State>) -> GetState<State>

    @inlinable
    init() {
      _dispatch = { core, action in core.dispatch(action) }
      _state = { core in core._reduction.stateIfAny }
      _add = { core, entry in core.add(entry) }
      _remove = { core, owner in core.remove(owner: owner) }
      _thunkHost = StoreCore.thunkHostFunction
      _thunkGetState = StoreCore.thunkGetStateFunction
    }
  }

  /// Builds the engine; inlinable, so that the closures on the path of an action are
  /// specialized for the app's `State`.
  @inlinable
  static func make(
    reduce: Reduction<State>.Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reentrantDispatchLimit: Int,
    route: Route?,
    reducesOnMainActor: Bool = false,
    pacing: RoundPacing = .mainQueue
  ) -> StoreCore {
    let words = StoreWords()
    let books = Locked(Books<State>(registry: Registry(words: words)))
    let core = StoreCore(
      reduction: Reduction(
        reduce: Reduction.function(for: reduce), state: state, books: books, words: words),
      books: books,
      words: words,
      specialized: Specialized(),
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reentrantDispatchLimit: reentrantDispatchLimit,
      route: route,
      reducesOnMainActor: reducesOnMainActor,
      pacing: pacing)
    if !middleware.isEmpty { core.setMiddleware(middleware) }
    return core
  }

  @usableFromInline
  init(
    reduction: Reduction<State>,
    books: Locked<Books<State>>,
    words: StoreWords,
    specialized: Specialized,
    automaticallySkipsRepeats: Bool,
    reentrantDispatchLimit: Int,
    route: Route?,
    reducesOnMainActor: Bool,
    pacing: RoundPacing
  ) {
    _reduction = reduction
    _words = words
    _processLock = ProcessLock(words: words)
    _mainLoop = MainLoop<State>(pacing: pacing, words: words)
    _books = books
    _route = route
    _reducesOnMainActor = reducesOnMainActor
    _automaticallySkipsRepeats = automaticallySkipsRepeats
    _reentrantDispatchLimit = reentrantDispatchLimit
    _specialized = specialized
  }

  deinit {
    // A waiter in `take` or `condition` may keep the books past the store: it keeps nothing the
    // app made.
    let entries = _books.withLock { $0.dropContents() }
    for entry in entries { entry.releaseSteps() }
  }

  /// ``dispatch(_:)`` for generic code: see `_specialized`.
  @usableFromInline
  func dispatchFromGenericCode(_ action: any Action) {
    _specialized._dispatch(self, action)
  }

  /// The committed state, for generic code: see `_specialized`.
  @usableFromInline
  var stateFromGenericCode: State? {
    _specialized._state(self)
  }

  @inlinable
  var currentState: State {
    guard let state = _reduction.stateIfAny else { Misuse.noState() }
    return state
  }

  /// Makes sure the store has a state after the init action went through the middleware: a
  /// middleware that swallowed or delayed it leaves none, so the reducer gets it directly.
  @usableFromInline
  func reduceInitIfNeeded() {
    guard _reduction.snapshot == nil else { return }
    _processLock.whileOwning(currentThreadID()) { _ = _reduction.commit(StatecraftInit()) }
  }

  // MARK: Middleware

  /// The middleware the chain in force was built from.
  @usableFromInline
  var middleware: [Middleware<State>] {
    _books.withLock { $0.middleware }
  }

  /// Builds the chain of `middleware` and installs it for the actions processed from now on.
  // Inlinable down to `endOfChain`, so that the chain's last function, which reduces, is
  // specialized for the app's `State` instead of looking up its metadata on every call.
  @inlinable
  func setMiddleware(_ middleware: [Middleware<State>]) {
    _reduction.checkNotReducing(.method("middleware"))
    let box = middleware.isEmpty ? nil : ChainBox(run: buildChain(middleware))
    _books.withLock {
      $0.middleware = middleware
      if let box { $0.chains.append(box) }
      _words.chain.store(box.map { address(of: $0) } ?? 0, ordering: .releasing)
    }
  }

  /// Installs `function` in place of the middleware chain (ReSwift's settable
  /// `dispatchFunction`), or, with `nil`, a chain of the middleware again.
  @usableFromInline
  func setDispatchFunction(_ function: DispatchFunction?) {
    guard let function else {
      setMiddleware(middleware)
      return
    }
    _reduction.checkNotReducing(.method("dispatchFunction"))
    let box = ChainBox(run: function)
    _books.withLock {
      $0.chains.append(box)
      _words.chain.store(address(of: box), ordering: .releasing)
    }
  }

  /// Reduces `action` without the middleware: in the current turn when this thread processes
  /// an action, else in a turn of its own, then notifies (ReSwift's `_defaultDispatch`).
  @usableFromInline
  func reduceSkippingMiddleware(_ action: any Action) {
    _reduction.checkNotReducing(.dispatch(action))
    #if DEBUG
      Reduction<State>.checkReducible(action)
    #endif
    if _processLock.isOwned(by: currentThreadID()) {
      _reduction.commit(action)
    } else {
      reduceLater(action)
    }
  }

  @inlinable
  func buildChain(_ middleware: [Middleware<State>]) -> DispatchFunction {
    let dispatch: DispatchFunction = { [weak self] in self?.dispatchFromMiddleware($0) }
    let getState: GetState<State> = { [weak self] in self?._reduction.stateIfAny }
    let last = endOfChain()
    var chain = last
    StoreChain.whileBuilding {
      chain = Self.compose(middleware, dispatch: dispatch, getState: getState, around: last)
    }
    return chain
  }

  /// Wraps `last` in each of `middleware`'s functions, the first outermost.
  ///
  /// Generic over the type of the functions passed along, so that they pass from one middleware
  /// to the next as the array holds them, at the abstraction of a generic value. Composed as
  /// `DispatchFunction`s, each was converted on its way out of a middleware and on its way into
  /// the next, which left two more reabstraction thunks per middleware on every dispatch.
  @inlinable
  static func compose<Function>(
    _ middleware:
      [@Sendable (
        @escaping DispatchFunction, @escaping GetState<State>
      ) -> (Function) -> Function],
    dispatch: @escaping DispatchFunction, getState: @escaping GetState<State>,
    around last: Function
  ) -> Function {
    var next = last
    for middleware in middleware.reversed() {
      next = middleware(dispatch, getState)(next)
    }
    return next
  }
}

/// What the store keeps under its bookkeeping lock, a leaf: never held while user code runs or
/// while another lock is taken.
@usableFromInline
struct Books<State: Sendable>: Sendable {
  @usableFromInline var queue = WorkQueue()
  @usableFromInline var registry: Registry<State>
  @usableFromInline var middleware: [Middleware<State>] = []
  /// Every chain built, the one in force last: a thread may still run one it read (C16).
  @usableFromInline var chains: [ChainBox] = []
  /// The tasks waiting in `take` and `condition`, and the observers of `actions()`.
  @usableFromInline var commitObservers = CommitObserverBook()

  @usableFromInline
  init(registry: Registry<State>) {
    self.registry = registry
  }

  /// Drops the subscriptions, the queued work and the middleware, for a store
  /// that is gone; the commit observers stay, and their waits end as their tasks are cancelled.
  ///
  /// Returns the subscriptions' entries, whose steps the caller drops outside the lock.
  mutating func dropContents() -> [SubscriptionEntry<State>] {
    let entries = registry.removeAll()
    queue = WorkQueue()
    middleware = []
    chains = []
    return entries
  }
}

/// Tells a middleware's outer function whether a Statecraft store is building the chain, so
/// that `createThunkMiddleware()` can hand thunks to the store's runner.
@usableFromInline
enum StoreChain {
  @TaskLocal static var isBuilding = false

  /// Runs `body` with ``isBuilding`` set.
  @usableFromInline
  static func whileBuilding(_ body: () -> Void) {
    $isBuilding.withValue(true, operation: body)
  }
}

extension StoreCore {
  @usableFromInline
  var commitObservers: (any CommitObserving)? { _reduction._commitObservers }

  @usableFromInline
  func scope<Slice: Sendable>(_ keyPath: KeyPath<State, Slice> & Sendable) -> ScopeCore<Slice> {
    ScopeCore(access: .root(self, keyPath), root: self)
  }
}
