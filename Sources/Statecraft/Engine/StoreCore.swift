import Dispatch

// Inlinable, so that the app compiles the path of an action for its own `State`: built
// generic in the library, a main-thread dispatch with one subscriber took 10,772 instructions
// instead of 1,099 and allocated, a dispatch from another thread 1,637 instead of 339
// (callgrind, Benchmarks/README.md, "Why the engine is inlinable").

/// The engine behind ``Store``: dispatch → middleware → reduce → commit → notify, top to bottom.
///
/// Each piece of mutable state has one owner: the committed state (`Reduction`, the state
/// lock), the process lock and its owner (`ProcessLock`), the subscriptions (`registry`), and
/// the main-queue rounds with the mark that one is due (`MainLoop`). `Docs/ConcurrencyModel.md`
/// states the invariants; `Docs/Architecture.md` follows one action through these files.
///
/// The middleware chain is read without a lock: `_chain` points at an immutable box, and a new
/// `middleware` array installs a new box. Replaced boxes live as long as the core, because a
/// thread may still be running the chain it read.
@usableFromInline
final class StoreCore<State: Sendable>: Sendable {
  /// Sends an action a middleware dispatched somewhere other than the reducer, such as a thunk
  /// to its runner.
  ///
  /// Returns whether it did. The one hook the layers above the engine have into it.
  @usableFromInline
  typealias Route = @Sendable (any Action, StoreCore<State>) -> Bool

  @usableFromInline let _reduction: Reduction<State>
  @usableFromInline let _processLock: ProcessLock
  @usableFromInline let _mainLoop: MainLoop<State>
  @usableFromInline let _registry: Locked<Registry<State>>
  /// Counts the changes of the registry's entries, for the main loop's copy of them.
  @usableFromInline let _entriesGeneration: AtomicCell<UInt64>
  /// How many subscriptions stand; a commit skips notification while it is zero.
  @usableFromInline let _subscriptionCount = AtomicCell<Int>(0)
  /// Told when `subscriptionCount` crosses zero (scopes stay alive while they have subscribers).
  let _occupancyObserver = Locked<(@Sendable () -> Void)?>(nil)
  /// The thread running `batch`, or 0; a round elsewhere waits for the batch's end.
  @usableFromInline let _batchThread = AtomicCell<UInt>(0)
  @usableFromInline let _reentrantDispatchLimit: Int
  @usableFromInline let _automaticallySkipsRepeats: Bool
  @usableFromInline let _route: Route?
  /// Set when the reducer is main-actor isolated: work from other threads goes to the main
  /// queue (C17).
  @usableFromInline let _mainActorHops: MainActorHops?
  /// The address of the middleware chain in force, an unretained `ChainBox`; 0 without
  /// middleware.
  @usableFromInline let _chain = AtomicCell<UInt>(0)
  /// The middleware array the chain was built from, and every chain built so far.
  @usableFromInline let _middleware = Locked<(array: [Middleware<State>], boxes: [ChainBox])>(
    ([], []))
  /// `dispatch` and the state's read compiled for the app's `State`, for the thunk layer.
  ///
  /// The thunk layer's generic code would otherwise run them unspecialized (callgrind: 3,341
  /// instructions for a thunk's dispatch, most of them generic metadata lookups, against about
  /// 150). The closures capture nothing: the caller passes the core it holds.
  @usableFromInline let _specialized: Specialized

  @usableFromInline
  struct Specialized: Sendable {
    @usableFromInline let _dispatch: @Sendable (StoreCore<State>, any Action) -> Void
    @usableFromInline let _state: @Sendable (StoreCore<State>) -> State?

    @inlinable
    init() {
      _dispatch = { core, action in core.dispatch(action) }
      _state = { core in core._reduction.stateIfAny }
    }
  }

  @inlinable
  init(
    reduce: Reduction<State>.Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reentrantDispatchLimit: Int,
    route: Route?,
    reducesOnMainActor: Bool = false,
    source: Reduction<State>.Source? = nil,
    pacing: RoundPacing = .mainQueue
  ) {
    _reduction = Reduction(reduce: reduce, state: state, source: source)
    _processLock = ProcessLock()
    _mainLoop = MainLoop<State>(pacing: pacing)
    let generation = AtomicCell<UInt64>(0)
    _entriesGeneration = generation
    _registry = Locked(Registry<State>(generation: generation))
    _route = route
    _mainActorHops = reducesOnMainActor ? MainActorHops() : nil
    self._automaticallySkipsRepeats = automaticallySkipsRepeats
    self._reentrantDispatchLimit = reentrantDispatchLimit
    _specialized = Specialized()
    if !middleware.isEmpty { setMiddleware(middleware) }
  }

  /// ``dispatch(_:)`` for generic code: see `_specialized`.
  func dispatchFromGenericCode(_ action: any Action) {
    _specialized._dispatch(self, action)
  }

  /// The committed state, for generic code: see `_specialized`.
  var stateFromGenericCode: State? {
    _specialized._state(self)
  }

  /// The middleware chain in force, or `nil` without middleware.
  @inlinable
  var chain: DispatchFunction? {
    guard let box = UnsafeRawPointer(bitPattern: _chain.load(ordering: .acquiring)) else {
      return nil
    }
    return Unmanaged<ChainBox>.fromOpaque(box)._withUnsafeGuaranteedRef { $0._run }
  }

  /// Builds the chain of `middleware` and installs it for the actions processed from now on.
  // Inlinable down to `endOfChain`, so that the chain's last function, which reduces, is
  // specialized for the app's `State`: built in generic code, it looked up `Optional<State>`'s
  // metadata on every dispatch through middleware (callgrind: 1,686 instructions a dispatch
  // through one pass-through middleware).
  @inlinable
  func setMiddleware(_ middleware: [Middleware<State>]) {
    _reduction.checkNotReducing(.method("middleware"))
    let box = middleware.isEmpty ? nil : ChainBox(run: buildChain(middleware))
    _middleware.withLock {
      $0.array = middleware
      if let box { $0.boxes.append(box) }
      let address = box.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
      _chain.store(address ?? 0, ordering: .releasing)
    }
  }

  @inlinable
  func buildChain(_ middleware: [Middleware<State>]) -> DispatchFunction {
    let dispatch: DispatchFunction = { [weak self] in self?.dispatchFromMiddleware($0) }
    let getState: GetState<State> = { [weak self] in self?._reduction.stateIfAny }
    // A loop, not `reduce`: a closure that passes through a generic `Result` is wrapped in two
    // reabstraction thunks, on every call, at every step of the chain (44 instructions a step).
    var next = endOfChain()
    StoreChain.whileBuilding {
      for middleware in middleware.reversed() {
        next = middleware(dispatch, getState)(next)
      }
    }
    return next
  }

  // MARK: Reading

  @inlinable
  var currentState: State {
    guard let state = _reduction.stateIfAny else { Misuse.noState() }
    return state
  }

  // MARK: Dispatching

  /// Reduces `action` through the middleware, then notifies subscribers: before returning on
  /// the main queue, in a scheduled round elsewhere (C1-C7).
  @inlinable @inline(__always)
  func dispatch(_ action: any Action) {
    withUnsafePointer(to: action) { dispatch(at: $0) }
  }

  // The action by address, not as `any Action`: the optimizer specializes a function that
  // takes an existential for the argument's dynamic type, and the specialized function boxes
  // the action again wherever it passes it on as `any Action`, one allocation each time for an
  // action over three words (callgrind: three allocations a dispatch of a 32-byte action the
  // app held as `any Action`; none now). A struct holding the action would cost a copy.
  @inlinable
  func dispatch(at action: UnsafePointer<any Action>) {
    let me = currentThreadID()
    _reduction.checkNotReducing(.dispatch(action.pointee))
    if _processLock.isOwned(by: me) {
      // Re-entrant, from a middleware: after the current action.
      _processLock.enqueue(action.pointee)
      return
    }
    if hopToMainIfNeeded(.dispatch(action.pointee)) { return }
    if _mainLoop._isRunningMirror.load(ordering: .relaxed),
      enqueueIfInRoundOnMain(action.pointee)
    {
      return
    }
    let hasSubscriptions = _subscriptionCount.load(ordering: .relaxed) > 0
    guard hasSubscriptions, MainQueue.isCurrent else {
      _ = process(at: action, thread: me, readingState: false)
      if hasSubscriptions {
        _mainLoop.scheduleRound(self)  // another thread: a round on the main queue (C5)
      } else if _subscriptionCount.load(ordering: .relaxed) > 0 {
        notify()  // a subscription came meanwhile; checked here, as the call costs 19 instructions
      }
      return
    }
    // On the main queue: the round delivers the state this action made before returning (C7),
    // read in the commit's critical section instead of a second one.
    let committed = process(at: action, thread: me, readingState: true)
    MainLoop.runRoundOnMainQueue(self, committed: consume committed)
  }

  /// The dispatch a middleware receives: the layers above may route the action elsewhere.
  @usableFromInline
  func dispatchFromMiddleware(_ action: any Action) {
    if let _route, _route(action, self) { return }
    dispatch(action)
  }

  /// Queues `action` on the main loop if this is the main queue and a round runs (C4).
  ///
  /// Returns whether it did.
  @usableFromInline
  func enqueueIfInRoundOnMain(_ action: any Action) -> Bool {
    guard MainQueue.isCurrent else { return false }
    return MainActor.assumeIsolated { _mainLoop.enqueueIfRunning(action) }
  }

  /// Runs `action` through the chain and then every action it queued (C2, C4).
  @inlinable @inline(__always)
  func process(_ action: any Action, thread me: UInt) {
    _ = withUnsafePointer(to: action) { process(at: $0, thread: me, readingState: false) }
  }

  /// Returns, when `readingState` and the store has no middleware, the state committed and its
  /// version; else `nil`.
  @inlinable @inline(__always)
  func process(
    at action: UnsafePointer<any Action>, thread me: UInt, readingState: Bool
  ) -> Reduction<State>.Snapshot? {
    guard let chain else {
      // Without middleware nothing can dispatch re-entrantly on this thread (a reducer may not;
      // subscribers queue on the main loop), so the state lock alone orders the reductions.
      #if DEBUG
        Misuse.checkReducible(action.pointee, in: State.self)
      #endif
      return _reduction.commit(at: action) { committed, version in
        readingState ? committed._state.map { ($0, version) } : nil
      }
    }
    _processLock.whileOwning(me) {
      chain(action.pointee)
      drainPending(chain)
    }
    return nil
  }

  /// Runs the actions middleware dispatched re-entrantly; the caller owns the process lock.
  @inlinable
  func drainPending(_ chain: DispatchFunction) {
    var count = 0
    while let next = _processLock.popPending() {
      count += 1
      if count > _reentrantDispatchLimit {
        Misuse.runaway(next, limit: _reentrantDispatchLimit)
      }
      chain(next)
    }
  }

  /// The function at the end of the middleware chain: reduces on the thread that holds the
  /// process lock, or, for a middleware that calls `next` later, takes the lock first.
  @inlinable
  func endOfChain() -> DispatchFunction {
    { [_reduction, _processLock, weak self] action in
      let me = currentThreadID()
      _reduction.checkNotReducing(.dispatch(action))
      #if DEBUG
        Misuse.checkReducible(action, in: State.self)
      #endif
      if _processLock.isOwned(by: me) {
        _reduction.commit(action)
      } else {
        self?.reduceLater(action, thread: me)
      }
    }
  }

  /// Reduces an action that a middleware passed on after its dispatch returned.
  @usableFromInline
  func reduceLater(_ action: any Action, thread me: UInt, notifying: Bool = true) {
    guard let chain, !hopToMainIfNeeded(.reduce(action)) else { return }
    _processLock.whileOwning(me) {
      _reduction.commit(action)
      drainPending(chain)
    }
    if notifying { notify() }
  }

  /// Makes sure the store has a state after the init action went through the middleware: a
  /// middleware that swallowed or delayed it leaves none, so the reducer gets it directly.
  @usableFromInline
  func reduceInitIfNeeded() {
    guard _reduction.snapshot == nil else { return }
    let me = currentThreadID()
    _processLock.whileOwning(me) { _ = _reduction.commit(StatecraftInit()) }
  }

  // MARK: Batching

  /// Reduces the actions `body` dispatches together, then notifies once.
  func batch(_ body: () -> Void) {
    let me = currentThreadID()
    _reduction.checkNotReducing(.method("batch"))
    if _processLock.isOwned(by: me) {
      body()  // inside processing (a middleware, or a batch): the actions join the outer one
      return
    }
    if _mainLoop._isRunningMirror.load(ordering: .relaxed), MainQueue.isCurrent {
      // In a round: queued like a dispatch from a subscriber (C4), reduced together after it.
      let loop = _mainLoop
      if MainActor.assumeIsolated({ loop.isCollectingBatch }) {
        body()
        return
      }
      if MainActor.assumeIsolated({ loop.beginBatchIfRunning() }) {
        body()
        MainActor.assumeIsolated { loop.endBatch() }
        return
      }
    }
    if let hops = _mainActorHops {
      guard MainQueue.isCurrent else {
        collectBatchForMain(body, thread: me)
        return
      }
      catchUpOnMain(hops)
    }
    _batchThread.store(me, ordering: .relaxed)
    _processLock.whileOwning(me) {
      body()
      _ = reducePending()
    }
    _batchThread.store(0, ordering: .releasing)
    notify()
  }

  /// Reduces what is queued in the process lock's pending queue; the caller owns the lock.
  ///
  /// Returns the version committed last.
  func reducePending() -> UInt64 {
    if let chain {
      drainPending(chain)
      return _reduction.version
    }
    var actions: [any Action] = []
    while let action = _processLock.popPending() {
      #if DEBUG
        Misuse.checkReducible(action, in: State.self)
      #endif
      actions.append(action)
    }
    return _reduction.commitAll(actions)
  }

  /// Whether another thread is in the middle of a batch whose actions commit one by one, so that
  /// a round now could deliver a state in the middle of it.
  ///
  /// Only with middleware: without it a batch commits all its actions in one critical section.
  @inlinable
  var isBatchOpenOnAnotherThread: Bool {
    guard _chain.load(ordering: .relaxed) != 0 else { return false }
    let thread = _batchThread.load(ordering: .acquiring)
    return thread != 0 && thread != currentThreadID()
  }

  /// Processes work a subscriber queued during a round, on the main queue.
  ///
  /// Returns the version committed when it was done, read while no other action of this chain
  /// could commit.
  func processQueued(_ work: MainLoop<State>.Work) -> UInt64 {
    let me = currentThreadID()
    switch work {
    case .action(let action):
      guard let chain else {
        #if DEBUG
          Misuse.checkReducible(action, in: State.self)
        #endif
        return _reduction.commit(action)
      }
      return _processLock.whileOwning(me) {
        chain(action)
        drainPending(chain)
        return _reduction.version
      }
    case .batch(let actions):
      _batchThread.store(me, ordering: .relaxed)
      defer { _batchThread.store(0, ordering: .releasing) }
      return _processLock.whileOwning(me) {
        for action in actions { _processLock.enqueue(action) }
        return reducePending()
      }
    }
  }

  // MARK: Notifying

  /// Notifies subscribers of the newest state: at once on the main queue (C7), else in a round
  /// scheduled there (C5).
  @inlinable
  func notify() {
    guard _subscriptionCount.load(ordering: .relaxed) > 0 else { return }
    if MainQueue.isCurrent {
      MainLoop.runRoundOnMainQueue(self)
    } else {
      _mainLoop.scheduleRound(self)
    }
  }
}

/// One built middleware chain.
@usableFromInline
final class ChainBox: Sendable {
  @usableFromInline let _run: DispatchFunction

  @inlinable
  init(run: @escaping DispatchFunction) {
    self._run = run
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
