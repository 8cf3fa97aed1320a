import Dispatch
import StatecraftAtomics

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
  /// Built in inlinable code, so specialized; the thunk layer's generic code calls them instead
  /// of running the dispatch path unspecialized. The closures capture nothing: the caller passes
  /// the core it holds.
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
  // specialized for the app's `State` instead of looking up its metadata on every call.
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
    // reabstraction thunks, called at every step of the chain.
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
  // the action again wherever it passes it on as `any Action`, an allocation each time for an
  // action over three words. A struct holding the action would cost a copy.
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
    _mainLoop.runRound(self, committed: consume committed)
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
    return _mainLoop.enqueueIfRunning(action)
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
        Reduction<State>.checkReducible(action.pointee)
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
        Reduction<State>.checkReducible(action)
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
      if loop.isCollectingBatch {
        body()
        return
      }
      if loop.beginBatchIfRunning() {
        body()
        loop.endBatch()
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
        Reduction<State>.checkReducible(action)
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
          Reduction<State>.checkReducible(action)
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
      _mainLoop.runRound(self)
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

/// The committed state, its version, and the reducer that makes the next one.
///
/// Owns the *state lock*. Split from `StoreCore` so that the end of the middleware chain can
/// hold it strongly: a middleware that keeps `next` after the store is gone then reduces into
/// this orphan, which no one reads, instead of every dispatch paying for a weak reference.
///
/// The committed state is behind the state lock. Which reduction a thread is running, and the
/// action, are thread-local (`sc_begin_reducing` in `StatecraftAtomics`), so that every store
/// method can stop when a reducer calls it (C11) without reading memory other threads write.
@usableFromInline
final class Reduction<State: Sendable>: Sendable {
  @usableFromInline
  enum Reduce {
    case returning(Reducer<State>)
    case inPlace(InPlaceReducer<State>)
    /// A main-actor reducer, as a function that changes the state in place, made on the main
    /// actor and called only on the main queue (C17).
    case onMainQueue(Reduction<State>.InPlace)
  }

  @usableFromInline
  typealias InPlace = (inout State?, borrowing any Action) -> Void

  @usableFromInline
  struct Committed: Sendable {
    /// `nil` only until the init action is reduced, and while the reducer runs.
    @usableFromInline var _state: State?
    /// Counts commits; a round delivers a state only if its version is newer than the last.
    @usableFromInline var _version: UInt64 = 0

    @inlinable
    init(state: State?) {
      self._state = state
    }
  }

  @usableFromInline let _committed: Locked<Committed>
  /// The reducer, either shape, as one function that changes the committed state in place.
  ///
  /// One closure rather than the `Reduce` enum: binding the enum's payload retained and released
  /// the reducer's context on every dispatch, inside the state lock.
  ///
  /// Not `Sendable` for a main-actor reducer, which the store calls only on the main queue: the
  /// dispatch path sends every other thread's work there first (C17).
  @usableFromInline nonisolated(unsafe) let _reduce: InPlace
  @usableFromInline let _listeners: ActionListeners
  /// Set while a round runs its selectors inside the state lock (`withCommittedState`), so that a
  /// commit waits for it by spinning rather than sleeping in the kernel: the round is short and
  /// running, and a wake-up costs a dispatching thread more than the round takes.
  @usableFromInline let _isSelecting = AtomicCell<Bool>(false)
  /// For a scope: reads the root's committed state through the scope's key path, with the
  /// root's version, instead of a committed state of its own (`nil` once the root is gone).
  @usableFromInline let _source: Source?

  @usableFromInline
  typealias Source = @Sendable () -> (state: State, version: UInt64)?

  @inlinable
  init(reduce: Reduce, state: State?, source: Source? = nil) {
    switch reduce {
    case .returning(let reducer):
      _reduce = { state, action in state = reducer(action, state.take()) }
    case .inPlace(let reducer):
      _reduce = { state, action in
        guard var next = state.take() else { Misuse.noState() }
        reducer(&next, action)
        state = next
      }
    case .onMainQueue(let reduce):
      _reduce = reduce
    }
    _source = source
    _committed = Locked(Committed(state: state))
    _listeners = ActionListeners()
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  @inlinable
  var stateIfAny: State? {
    checkNotReducing(.readState)
    if let _source { return _source()?.state }
    return _committed.withLock { $0._state }
  }

  /// Waits, spinning for at most about ten microseconds, until the round running its selectors
  /// under the state lock is done; the lock then sleeps if it is still held.
  @usableFromInline
  func waitForSelection() {
    for _ in 0..<500 where _isSelecting.load(ordering: .relaxed) {
      sc_cpu_relax()
    }
  }

  /// A committed state and its version.
  @usableFromInline
  typealias Snapshot = (state: State, version: UInt64)

  /// The committed state and its version, read together.
  @inlinable
  var snapshot: Snapshot? {
    if let _source { return _source() }
    return _committed.withLock { committed in committed._state.map { ($0, committed._version) } }
  }

  /// Stops the program if the calling thread is running the reducer, or a round's selectors
  /// under the state lock (C11).
  @inlinable
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    if sc_reducing_reduction() == UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) {
      if sc_reducing_action() == sc_selecting_marker() { Misuse.calledFromSelector(call()) }
      let action = sc_reducing_action()?.assumingMemoryBound(to: (any Action).self)
      Misuse.calledFromReducer(call(), reducing: action.map { type(of: $0.pointee) })
    }
  }

  /// Runs `body` with the committed state and its version inside the state lock, so that no
  /// reference to the state outlives the lock and the next commit finds it unshared (C13).
  ///
  /// For a round's first phase, which runs the subscriptions' selectors and filters: the store's
  /// methods stop if they call it (C11). Returns `nil` before the first state.
  @inlinable
  func withCommittedState<Result>(_ body: (State, UInt64) -> Result) -> Result? {
    // Set once the lock is taken, so that commits spin only while this thread holds it, and
    // cleared once it is released, so that a commit that stops spinning finds it free.
    defer { _isSelecting.store(false, ordering: .relaxed) }
    return _committed.withLock { committed in
      guard let state = committed._state else { return nil }
      _isSelecting.store(true, ordering: .relaxed)
      let outer = sc_begin_reducing(
        Unmanaged.passUnretained(self).toOpaque(), sc_selecting_marker())
      defer { sc_end_reducing(outer) }
      return body(state, committed._version)
    }
  }

  /// Reduces `action` and commits the result.
  ///
  /// Returns the version committed.
  // Always inlined: as a call, it copies and destroys the action's existential.
  @inlinable @inline(__always)
  @discardableResult
  func commit(_ action: any Action) -> UInt64 {
    withUnsafePointer(to: action) { commit(at: $0) }
  }

  /// ``commit(_:)`` for the action at `action`, which the dispatch path passes by address (see
  /// `StoreCore.dispatch(at:)`).
  @inlinable @inline(__always)
  @discardableResult
  func commit(at action: UnsafePointer<any Action>) -> UInt64 {
    commit(at: action) { _, version in version }
  }

  /// ``commit(at:)``, returning what `read` makes of the committed state and its version in the
  /// same critical section.
  @inlinable @inline(__always)
  func commit<Result>(
    at action: UnsafePointer<any Action>,
    then read: (_ committed: borrowing Committed, _ version: UInt64) -> Result
  ) -> Result {
    // Copied before the lock, not inside it: the reducer takes the action borrowed, and the copy
    // of the existential that reading `pointee` makes was a seventh of the critical section.
    let copy = action.pointee
    if _isSelecting.load(ordering: .relaxed) { waitForSelection() }
    let result = _committed.withLock { committed in
      let version = commitLocked(&committed, copy, at: action)
      return read(committed, version)
    }
    if _listeners._count.load(ordering: .relaxed) > 0 {
      _listeners.notify(action.pointee)
    }
    return result
  }

  /// Reduces `actions` in one critical section, so that no other thread's action falls
  /// between them and no reader sees a state in the middle.
  ///
  /// Returns the version committed last.
  @discardableResult
  func commitAll(_ actions: [any Action]) -> UInt64 {
    let version = _committed.withLock { committed in
      for action in actions {
        _ = withUnsafePointer(to: action) { commitLocked(&committed, action, at: $0) }
      }
      return committed._version
    }
    if _listeners._count.load(ordering: .relaxed) > 0 {
      for action in actions { _listeners.notify(action) }
    }
    return version
  }

  /// Reduces `action`, found at `address`, into `committed`, which the caller has locked.
  @inlinable @inline(__always)
  func commitLocked(
    _ committed: inout Committed, _ action: borrowing any Action,
    at address: UnsafePointer<any Action>
  ) -> UInt64 {
    // The action's address, not `type(of: action)`: that is a runtime call on every dispatch,
    // for a message that is almost never written.
    let outer = sc_begin_reducing(Unmanaged.passUnretained(self).toOpaque(), address)
    _reduce(&committed._state, action)
    sc_end_reducing(outer)
    committed._version &+= 1
    if _listeners._observerCount.load(ordering: .relaxed) > 0 {
      _listeners.notifyObservers(copy action)
    }
    return committed._version
  }

  /// The version committed last.
  var version: UInt64 {
    if let _source { return _source()?.version ?? 0 }
    return _committed.withLock { $0._version }
  }
}

/// The lock held while middleware and reducer run for one action and every action it causes,
/// with the thread that holds it and that thread's queue of re-entrant dispatches (C2, C4).
///
/// Only stores with middleware take it: without middleware nothing can dispatch re-entrantly on
/// the dispatching thread, so the state lock alone orders reductions.
///
/// `_pending` is read and written only by the thread recorded in `_owner`, which holds `_lock`
/// for the whole time it is recorded there.
@usableFromInline
final class ProcessLock: Sendable {
  @usableFromInline let _lock = Lock()
  /// The thread that holds `_lock`, or 0.
  @usableFromInline let _owner = AtomicCell<UInt>(0)
  @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var _pending = FIFO<any Action>()

  @inlinable
  init() {}

  /// Whether `thread` holds the lock.
  @inlinable
  func isOwned(by thread: UInt) -> Bool {
    _owner.load(ordering: .relaxed) == thread
  }

  /// Holds the lock and records `thread` as its owner while `body` runs.
  @inlinable
  func whileOwning<Result>(_ thread: UInt, _ body: () -> Result) -> Result {
    _lock.withLock {
      _owner.store(thread, ordering: .relaxed)
      defer { _owner.store(0, ordering: .relaxed) }
      return body()
    }
  }

  /// Queues an action dispatched re-entrantly by the owner.
  @inlinable
  func enqueue(_ action: any Action) {
    _pending.append(action)
  }

  /// Removes the next queued action; call only as the owner.
  @inlinable
  func popPending() -> (any Action)? {
    _pending.popFirst()
  }
}

/// The queue that carries a main-actor store's work from other threads to the main queue (C17).
///
/// A store whose reducer is main-actor isolated (what a reducer function is in a target built
/// with default main-actor isolation) reduces only on the main queue. Work dispatched elsewhere
/// is queued here in order, and one block on the main queue processes everything queued, then
/// notifies once. A dispatch on the main queue first processes what is queued, so it never
/// overtakes a dispatch that happened before it.
@usableFromInline
final class MainActorHops: Sendable {
  @usableFromInline
  enum Work: Sendable {
    case dispatch(any Action)
    /// An action a middleware passed to `next` after its dispatch returned.
    case reduce(any Action)
    /// The actions of a `batch`, reduced together.
    case batch([any Action])
  }

  private struct Queue: Sendable {
    var work = FIFO<Work>()
    var isDrainScheduled = false
  }

  private let queue = Locked(Queue())
  /// How much work is queued; read without the lock by dispatches on the main queue.
  @usableFromInline let _count = AtomicCell<Int>(0)

  @usableFromInline
  init() {}

  /// Queues `work` and makes sure a block on the main queue will process it.
  @usableFromInline
  func send<State>(_ work: Work, to core: StoreCore<State>) {
    let schedule = queue.withLock { queue in
      queue.work.append(work)
      defer { queue.isDrainScheduled = true }
      return !queue.isDrainScheduled
    }
    _count.add(1, ordering: .releasing)
    guard schedule else { return }
    DispatchQueue.main.async { [weak core] in
      core?.processHops()
    }
  }

  /// Takes the next queued work; on the main queue only.
  fileprivate func next() -> Work? {
    queue.withLock { queue in
      guard let work = queue.work.popFirst() else {
        queue.isDrainScheduled = false
        return nil
      }
      return work
    }
  }

  fileprivate func didTake() {
    _count.add(-1, ordering: .relaxed)
  }
}

extension StoreCore {
  /// Sends `work` to the main queue if this store reduces there and this is not it.
  ///
  /// Returns whether it did. On the main queue, first processes what other threads queued.
  @inlinable
  func hopToMainIfNeeded(_ work: @autoclosure () -> MainActorHops.Work) -> Bool {
    guard let hops = _mainActorHops else { return false }
    guard MainQueue.isCurrent else {
      hops.send(work(), to: self)
      return true
    }
    catchUpOnMain(hops)
    return false
  }

  /// On the main queue: processes what other threads queued before going on, unless a round
  /// runs (its dispatches queue behind it, C4, and the scheduled block processes the rest).
  @inlinable
  func catchUpOnMain(_ hops: MainActorHops) {
    if hops._count.load(ordering: .acquiring) > 0,
      !_mainLoop._isRunningMirror.load(ordering: .relaxed)
    {
      processHops()
    }
  }

  /// Processes, on the main queue, everything other threads queued, then notifies once.
  @usableFromInline
  func processHops() {
    guard let hops = _mainActorHops else { return }
    let me = currentThreadID()
    var processed = 0
    while let work = hops.next() {
      hops.didTake()
      processed += 1
      switch work {
      case .dispatch(let action):
        _reduction.checkNotReducing(.dispatch(action))
        process(action, thread: me)
      case .reduce(let action):
        reduceLater(action, thread: me, notifying: false)
      case .batch(let actions):
        _processLock.whileOwning(me) {
          for action in actions { _processLock.enqueue(action) }
          _ = reducePending()
        }
      }
    }
    if processed > 0 { notify() }
  }

  /// Runs `body` for a `batch` called off the main queue by a main-actor store: the actions it
  /// dispatches are collected, then sent to the main queue together.
  func collectBatchForMain(_ body: () -> Void, thread me: UInt) {
    let actions = _processLock.whileOwning(me) {
      body()
      var actions: [any Action] = []
      while let action = _processLock.popPending() { actions.append(action) }
      return actions
    }
    if !actions.isEmpty, let hops = _mainActorHops {
      hops.send(.batch(actions), to: self)
    }
  }
}

extension Reduction {
  /// Stops if `action` is a thunk of this store's state that reached the reducer.
  ///
  /// A thunk of another state passes, as in ReSwift, where the reducer ignores it. Debug builds
  /// only: the check costs a dynamic cast per action.
  @usableFromInline
  static func checkReducible(_ action: any Action) {
    guard let startable = action as? any StartedByTheStore,
      type(of: startable).stateType == State.self
    else { return }
    Misuse.thunkReachedReducer(action)
  }
}

/// An action the store starts instead of reducing: a thunk.
///
/// The engine knows only this marker; the thunk layer conforms its types to it.
@usableFromInline
protocol StartedByTheStore: Action {
  /// The state of the stores that start it.
  static var stateType: Any.Type { get }
}

extension Reduction {
  // A non-Sendable function made on the main actor may drop its isolation: it cannot leave the
  // main actor's region (SE-0434). The store keeps it in `_reduce`, which it calls only on the
  // main queue (C17), and hands it out of the main actor once, in `Store.init`.

  /// A main-actor reducer of ReSwift's shape as the function the store calls.
  @MainActor
  static func onMainQueue(_ reducer: @escaping @MainActor (any Action, State?) -> State) -> InPlace
  {
    { state, action in
      assert(MainQueue.isCurrent, "Statecraft: a main-actor reducer ran off the main queue")
      state = reducer(action, state.take())
    }
  }

  /// A main-actor in-place reducer as the function the store calls.
  @MainActor
  static func onMainQueue(_ reducer: @escaping MainActorInPlaceReducer<State>) -> InPlace {
    { state, action in
      assert(MainQueue.isCurrent, "Statecraft: a main-actor reducer ran off the main queue")
      guard var next = state.take() else { Misuse.noState() }
      reducer(&next, action)
      state = next
    }
  }
}
