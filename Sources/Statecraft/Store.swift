import Dispatch
import StatecraftPrimitives

// Inlinable, so that the app compiles the path of an action for its own `State`
// (Benchmarks/README.md, "Why the engine is inlinable").

/// The single source of truth for an app's state.
///
/// A store holds the state, reduces dispatched actions into new states through middleware and a
/// reducer, and notifies subscribers. Create one at app start and keep it in a global:
///
/// ```swift
/// let mainStore = Store<AppState>(reducer: appReducer, state: nil)
/// ```
///
/// `Store` is `Sendable`: dispatch from any thread, task or actor, and read ``state`` anywhere.
///
/// > Important: Actions are reduced one at a time in one total order (FIFO for each thread).
/// > A dispatch made while an action is processed (from a middleware or a subscriber) is queued
/// > and runs after it, before the outermost `dispatch` returns. Subscribers are called on the
/// > main queue with the newest state, never an older one after a newer one; a dispatch on the
/// > main queue notifies them before it returns.
///
/// ## Subclassing
///
/// `Store` can be subclassed, as ReSwift's can, to add stored properties or to run code in
/// `deinit`. Its own members are `final`: a subclass adds, it does not override. A subclass's
/// designated initializer calls `init(reducer:state:middleware:automaticallySkipsRepeats:)`
/// with all four arguments.
// The one `@unchecked Sendable` outside Sources/Statecraft/Internal (.ci/run allows exactly this
// line): a non-final class cannot be checked `Sendable`. Safe because Store's own stored
// properties are `final let`s of `Sendable` types (`Engine`, `ThunkRunner`); what a subclass
// stores is the subclass's to make safe, as its required restatement of the conformance says.
open class Store<State: Sendable>: @unchecked Sendable {
  /// The most re-entrant dispatches one outermost dispatch may cause before the store stops
  /// with a message about an endless loop: 10,000.
  @usableFromInline package static var reentrantDispatchLimit: Int { 10_000 }

  /// The store's own engine, or, for a scope, the engine that forwards to its root's.
  @usableFromInline final let _engine: Engine<State>
  @usableFromInline final let _thunks: ThunkRunner

  /// Creates a store with a reducer of ReSwift's shape.
  ///
  /// With `state: nil`, the store dispatches ``StatecraftInit`` through the middleware and the
  /// reducer returns the initial state. If a middleware swallows or delays that action, the
  /// reducer receives it directly, so the store always has a state once `init` returns.
  /// Subscriptions to `Equatable` values skip values equal to the previous one; to choose, pass
  /// `automaticallySkipsRepeats:` to `init(reducer:state:middleware:automaticallySkipsRepeats:)`.
  ///
  /// - Parameters:
  ///   - reducer: The function that returns the next state for each action.
  ///   - state: The initial state, or `nil` to let the reducer create it.
  ///   - middleware: Functions that see each action before the reducer, first one first.
  /// - Complexity: O(m) for m middleware, plus one reduction when `state` is `nil`.
  @preconcurrency @inlinable
  public convenience init(
    reducer: @escaping Reducer<State>,
    state: State?,
    middleware: [Middleware<State>] = []
  ) {
    // No `automaticallySkipsRepeats:` here, so that the four-argument call a subclass makes
    // with `super.init` finds only the designated initializer below.
    self.init(
      reduce: .returning(reducer),
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: true
    )
  }

  /// Creates a store with a reducer of ReSwift's shape, choosing whether subscriptions skip
  /// repeated values; the initializer a subclass calls with `super.init`.
  ///
  /// It behaves as ``init(reducer:state:middleware:)``. It is the designated initializer of
  /// ReSwift's `Store`, with its signature, so a ReSwift subclass compiles unchanged:
  ///
  /// ```swift
  /// class DeInitStore<State>: Store<State> {
  ///   var deInitAction: (() -> Void)?
  ///   deinit { deInitAction?() }
  ///
  ///   required init(
  ///     reducer: @escaping Reducer<State>, state: State?,
  ///     middleware: [Middleware<State>], automaticallySkipsRepeats: Bool
  ///   ) {
  ///     super.init(
  ///       reducer: reducer, state: state, middleware: middleware,
  ///       automaticallySkipsRepeats: automaticallySkipsRepeats)
  ///   }
  /// }
  /// ```
  ///
  /// A subclass's own members are its own; the store's are `final`, so a subclass adds stored
  /// properties and a `deinit` and cannot change how a dispatch runs. A subclass restates
  /// `@unchecked Sendable` (the compiler warns until it does): its stored properties must be
  /// safe to share across threads, as the store's are.
  ///
  /// > Important: Compiled once for every `State`, this initializer builds the path of an action
  /// > without knowing the app's state type, so a dispatch into a store made by it costs more
  /// > than one into a store made by ``init(reducer:state:middleware:)``, which is compiled for
  /// > the app's `State` (Benchmarks/README.md, row a). Create stores of a class you do not
  /// > subclass with that initializer.
  ///
  /// - Parameters:
  ///   - reducer: The function that returns the next state for each action.
  ///   - state: The initial state, or `nil` to let the reducer create it.
  ///   - middleware: Functions that see each action before the reducer, first one first.
  ///   - automaticallySkipsRepeats: Whether subscriptions to `Equatable` values skip values equal
  ///     to the previous one without being asked to.
  /// - Complexity: O(m) for m middleware, plus one reduction when `state` is `nil`.
  @preconcurrency
  public required init(
    reducer: @escaping Reducer<State>,
    state: State?,
    middleware: [Middleware<State>] = [],
    automaticallySkipsRepeats: Bool
  ) {
    let (core, thunks) = Store.makeRoot(
      reduce: .returning(reducer),
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reducesOnMainActor: false,
      pacing: .mainQueue
    )
    _engine = .root(core)
    _thunks = thunks
    Store.start(core, reducingInit: state == nil, reducesOnMainActor: false)
  }

  /// Creates a store with a reducer that changes the state in place.
  ///
  /// Use this form when the state holds large collections: changing one element costs the same
  /// whatever the collection's size, because nothing is copied.
  ///
  /// - Parameters:
  ///   - reducer: The function that changes the state for each action.
  ///   - state: The initial state.
  ///   - middleware: Functions that see each action before the reducer, first one first.
  ///   - automaticallySkipsRepeats: Whether subscriptions to `Equatable` values skip values equal
  ///     to the previous one without being asked to.
  /// - Complexity: O(m) for m middleware.
  @preconcurrency @inlinable
  public convenience init(
    reducer: @escaping InPlaceReducer<State>,
    state: State,
    middleware: [Middleware<State>] = [],
    automaticallySkipsRepeats: Bool = true
  ) {
    self.init(
      reduce: .inPlace(reducer),
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats
    )
  }

  /// Creates a store with a main-actor-isolated reducer of ReSwift's shape, reduced on the main
  /// queue.
  ///
  /// In a target built with `.defaultIsolation(MainActor.self)` (the default of new app targets)
  /// a reducer function is main-actor isolated; this initializer takes it as it is. The store
  /// then reduces on the main queue only: a dispatch there reduces at once, as with any store; a
  /// dispatch from another thread or task is queued in order and reduced on the main queue soon
  /// after, so it returns before its action is reduced. Everything else behaves as for a
  /// nonisolated reducer. The initial state is built on the main actor (`AppState()` is
  /// main-actor isolated there too); created off the main queue, the store waits for the main
  /// queue to build it or to reduce the init action.
  ///
  /// ```swift
  /// // AppDelegate.swift, in an app target with default main-actor isolation
  /// nonisolated let mainStore = Store<AppState>(reducer: appReducer, state: nil)
  /// ```
  ///
  /// - Parameters:
  ///   - reducer: The function that returns the next state for each action.
  ///   - state: The initial state, or `nil` to let the reducer create it; evaluated on the main
  ///     actor.
  ///   - middleware: Functions that see each action before the reducer, first one first; they
  ///     run on the main queue too. Evaluated on the main actor.
  ///   - automaticallySkipsRepeats: Whether subscriptions to `Equatable` values skip values equal
  ///     to the previous one without being asked to.
  /// - Complexity: O(m) for m middleware, plus one reduction when `state` is `nil`. A dispatch
  ///   from another thread is O(1) plus a lock; its reduction happens on the main queue.
  public convenience init(
    reducer: @escaping @MainActor (_ action: any Action, _ state: State?) -> State,
    state: @autoclosure @MainActor () -> State?,
    middleware: @autoclosure @MainActor () -> [Middleware<State>] = [],
    automaticallySkipsRepeats: Bool = true
  ) {
    // Not disfavored: Swift picks this overload only for a main-actor function, where it is the
    // exact match, and the other one for a nonisolated function or a closure literal (checked in
    // Tests/Client and Tests/ClientMainActor).
    let (reduce, state, middleware) = MainQueue.makeOnMainActor {
      (Reduction.onMainQueue(reducer), state(), middleware())
    }
    self.init(
      reduce: .onMainQueue(reduce),
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reducesOnMainActor: true
    )
  }

  /// Creates a store with a main-actor-isolated reducer that changes the state in place, reduced
  /// on the main queue.
  ///
  /// What `combineReducers` and `scopedReducer` return for reducer functions in a target with
  /// default main-actor isolation. The store behaves as the one with a main-actor reducer of
  /// ReSwift's shape: it reduces on the main queue, and dispatches from other threads are queued
  /// in order.
  ///
  /// ```swift
  /// let appReducer = combineReducers(
  ///   scopedReducer(\AppState.films, filmsReducer),
  ///   scopedReducer(\AppState.settings, settingsReducer)
  /// )
  /// nonisolated let mainStore = Store(reducer: appReducer, state: AppState())
  /// ```
  ///
  /// - Parameters:
  ///   - reducer: The function that changes the state for each action, evaluated on the main
  ///     actor.
  ///   - state: The initial state, evaluated on the main actor.
  ///   - middleware: Functions that see each action before the reducer, first one first; they
  ///     run on the main queue too. Evaluated on the main actor.
  ///   - automaticallySkipsRepeats: Whether subscriptions to `Equatable` values skip values equal
  ///     to the previous one without being asked to.
  /// - Complexity: O(m) for m middleware. A dispatch from another thread is O(1) plus a lock;
  ///   its reduction happens on the main queue.
  public convenience init(
    reducer: @autoclosure @MainActor () -> MainActorInPlaceReducer<State>,
    state: @autoclosure @MainActor () -> State,
    middleware: @autoclosure @MainActor () -> [Middleware<State>] = [],
    automaticallySkipsRepeats: Bool = true
  ) {
    // The arguments are evaluated on the main actor: in a target with default main-actor
    // isolation, `AppState()`, a global `let appReducer = combineReducers(...)` and a global
    // persistence's middleware are main-actor isolated, and `mainStore` is not. The
    // autoclosures also tell this overload apart from the nonisolated one, whose reducer type
    // differs only in isolation, which Swift does not count in a signature.
    let (reduce, state, middleware) = MainQueue.makeOnMainActor {
      (Reduction.onMainQueue(reducer()), state(), middleware())
    }
    self.init(
      reduce: .onMainQueue(reduce),
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reducesOnMainActor: true
    )
  }

  @inlinable
  convenience init(
    reduce: Reduction<State>.Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reducesOnMainActor: Bool = false,
    pacing: RoundPacing = .mainQueue
  ) {
    let (core, thunks) = Store.makeRoot(
      reduce: reduce,
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reducesOnMainActor: reducesOnMainActor,
      pacing: pacing
    )
    self.init(engine: .root(core), thunks: thunks)
    Store.start(core, reducingInit: state == nil, reducesOnMainActor: reducesOnMainActor)
  }

  /// Builds a root store's engine and its thunk runner.
  @inlinable
  static func makeRoot(
    reduce: Reduction<State>.Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reducesOnMainActor: Bool,
    pacing: RoundPacing
  ) -> (StoreCore<State>, ThunkRunner) {
    let thunks = ThunkRunner()
    let core = StoreCore.make(
      reduce: reduce,
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats,
      reentrantDispatchLimit: reentrantDispatchLimit,
      route: thunks.route(),
      reducesOnMainActor: reducesOnMainActor,
      pacing: pacing
    )
    return (core, thunks)
  }

  /// Reduces the init action when the store was created without a state.
  @inlinable
  static func start(_ core: StoreCore<State>, reducingInit: Bool, reducesOnMainActor: Bool) {
    if reducingInit {
      let reduceInit = {
        core.dispatch(StatecraftInit())
        core.reduceInitIfNeeded()
      }
      if reducesOnMainActor, !MainQueue.isCurrent {
        DispatchQueue.main.sync(execute: reduceInit)
      } else {
        reduceInit()
      }
    }
    #if DEBUG
      if let state = core._reduction.snapshot?.state {
        StatecraftDiagnostics.checkReferences(in: state)
      }
    #endif
  }

  /// Stores the engine and the thunk runner that the inlinable initializers built.
  ///
  /// The designated initializer of every other initializer but the subclasses' one. The closures
  /// on the path of an action are built by the inlinable initializers, specialized for the
  /// app's `State`; this one is opaque, as a library-evolution build requires of a class's
  /// designated initializer.
  @usableFromInline
  init(engine: Engine<State>, thunks: ThunkRunner) {
    _engine = engine
    _thunks = thunks
  }

  deinit {
    // Running thunks hold the store weakly; once it is gone they are cancelled (C12).
    _thunks.cancelAll()
  }

  /// The current state: always a committed state, never one a reducer is computing.
  ///
  /// Safe to read from any thread. Reading it from inside a reducer stops the program: the
  /// reducer receives the state as its parameter.
  /// - Complexity: O(1): a lock and a copy of the state (a reference count for copy-on-write
  ///   storage).
  @inlinable
  public final var state: State {
    _engine.currentState
  }

  /// Sends an action through the middleware to the reducer.
  ///
  /// Call it from any thread or task. When called on the main queue, subscribers have been
  /// notified of the resulting state when it returns.
  ///
  /// ```swift
  /// mainStore.dispatch(CounterAction.increment)
  /// ```
  ///
  /// > Important: Called from inside a middleware or a subscriber's `newState`, the action is
  /// > queued and processed after the current one, before the outermost `dispatch` returns.
  /// > Called from inside a reducer, it stops the program with a message naming the action.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Complexity: O(1) plus the middleware and the reducer, from any thread: the store keeps no
  ///   backlog of states. On the main queue add one notification round, O(s) for s subscriptions.
  @_disfavoredOverload
  @inlinable @inline(__always)
  public final func dispatch(_ action: any Action) {
    // Disfavored so that a thunk, which is also an action, picks its own overload that returns
    // a task: the generic `AsyncThunk` overload would otherwise lose to this non-generic one.
    // Always inlined, as `StoreCore.dispatch(_:)` is, down to `dispatch(at:)`: a function that
    // takes the action as `any Action` would be specialized for its dynamic type and box it
    // again (see `StoreCore.dispatch(at:)`). A scope sends it to its root.
    _engine.dispatch(action)
  }
}
