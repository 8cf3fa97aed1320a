import Dispatch
import StatecraftAtomics

// The engine's entry points on the path of an action: dispatch, the state, and what a thunk's
// start asks. The others are in Engine.swift.
extension Engine {
  // A method, not a `switch` in `Store`: the engine is then borrowed, and binding the core costs
  // no retain.
  @inlinable @inline(__always)
  func dispatch(_ action: any Action) {
    switch self {
    case .root(let core): core.dispatch(action)
    case .scope(let scope): scope.dispatch(action)
    }
  }

  @inlinable
  var currentState: State {
    switch self {
    case .root(let core): core.currentState
    case .scope(let scope): scope.currentState
    }
  }

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
}

/// The engine behind ``Store``: dispatch → middleware → reduce → commit → notify, top to bottom.
///
/// Each piece of mutable state has one owner:
/// - the committed state and its version: `Reduction`, behind the state lock;
/// - the turn to run middleware and the reducer, and the thread that has it: `ProcessLock`;
/// - the one queue of deferred work, the subscriptions, the middleware and its chains:
///   `Books`, behind the bookkeeping lock, a leaf;
/// - the main-queue rounds and the mark that one is due: `MainLoop` (Delivery.swift).
///
/// `Docs/ConcurrencyModel.md` states the invariants (C1-C17); `Docs/Architecture.md` follows one
/// action through this file and Delivery.swift.
///
/// The middleware chain is read without a lock: `_chain` holds the address of an immutable box,
/// and a new `middleware` array installs a new box. Replaced boxes live as long as the core,
/// because a thread may still be running the chain it read (C16).
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

    @inlinable
    init() {
      _dispatch = { core, action in core.dispatch(action) }
      _state = { core in core._reduction.stateIfAny }
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
    _books.withLock { $0.dropContents() }
  }

  /// ``dispatch(_:)`` for generic code: see `_specialized`.
  func dispatchFromGenericCode(_ action: any Action) {
    _specialized._dispatch(self, action)
  }

  /// The committed state, for generic code: see `_specialized`.
  var stateFromGenericCode: State? {
    _specialized._state(self)
  }

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
      // Re-entrant, from a middleware or a batch's body: after the current action (C4).
      enqueue(.dispatch(action.pointee), on: .owner)
      return
    }
    if _reducesOnMainActor, !readyForMainActor(.dispatch(action.pointee)) { return }
    if _words.isRoundRunning, MainQueue.isCurrent {
      // From a subscriber: after the round's delivery (C4).
      enqueue(.dispatch(action.pointee), on: .round)
      return
    }
    let hasSubscriptions = _words.subscriptionCount > 0
    guard hasSubscriptions, MainQueue.isCurrent else {
      _ = process(at: action, thread: me, readingState: false)
      if hasSubscriptions {
        _mainLoop.scheduleRound(self)  // another thread: a round on the main queue (C5)
      } else if _words.subscriptionCount > 0 {
        notify()  // a subscription came meanwhile
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

  /// Runs `action` through the chain and then every action it queued (C2, C4).
  ///
  /// Returns, when `readingState` and the store has no middleware, the state committed and its
  /// version; else `nil`.
  @inlinable @inline(__always)
  func process(
    at action: UnsafePointer<any Action>, thread me: UInt, readingState: Bool
  ) -> Reduction<State>.Snapshot? {
    guard let chain else {
      // Without middleware nothing can dispatch re-entrantly on this thread (a reducer may not;
      // subscribers queue on the round lane), so the state lock alone orders the reductions.
      #if DEBUG
        Reduction<State>.checkReducible(action.pointee)
      #endif
      return _reduction.commit(at: action) { committed, version in
        readingState ? committed._state.map { ($0, version) } : nil
      }
    }
    _processLock.whileOwning(me) {
      chain(action.pointee)
      drainOwnerLane(chain)
    }
    return nil
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
        self?.reduceLater(action)
      }
    }
  }

  /// Reduces an action that a middleware passed on after its dispatch returned.
  @usableFromInline
  func reduceLater(_ action: any Action) {
    if _reducesOnMainActor, !readyForMainActor(.reduce(action)) { return }
    perform(.reduce(action), thread: currentThreadID())
    notify()
  }

  /// Makes sure the store has a state after the init action went through the middleware: a
  /// middleware that swallowed or delayed it leaves none, so the reducer gets it directly.
  @usableFromInline
  func reduceInitIfNeeded() {
    guard _reduction.snapshot == nil else { return }
    _processLock.whileOwning(currentThreadID()) { _ = _reduction.commit(StatecraftInit()) }
  }

  // MARK: The queue

  /// Queues `work` on `lane`; for the `mainActor` lane, makes sure a block on the main queue
  /// will run it.
  @inlinable
  func enqueue(_ work: Work, on lane: Lane) {
    if lane == .owner {
      _processLock._ownerLane.append(work)
    } else {
      enqueue(CollectionOfOne(work), on: lane)
    }
  }

  /// Queues each of `works` on `lane`, in order, in one critical section.
  @usableFromInline
  func enqueue(_ works: some Collection<Work>, on lane: Lane) {
    if lane == .owner {
      for work in works { _processLock._ownerLane.append(work) }
      return
    }
    let post = _books.withLock { books in
      for work in works { books.queue.append(work, on: lane) }
      guard lane == .mainActor, !books.queue.isMainActorDrainPosted else { return false }
      books.queue.isMainActorDrainPosted = true
      return true
    }
    _words.countQueued(by: works.count)
    if post {
      DispatchQueue.main.async { [weak self] in self?.drainMainActorLane() }
    }
  }

  /// Removes the next work of `lane`, if any.
  @inlinable
  func popWork(from lane: Lane) -> Work? {
    if lane == .owner { return _processLock._ownerLane.popFirst() }
    // The `mainActor` lane always looks under the lock: finding it empty there clears the mark
    // that a block to drain it is posted.
    guard lane == .mainActor || _words.hasQueuedWork else { return nil }
    let work = _books.withLock { books in
      let work = books.queue.popFirst(from: lane)
      if work == nil, lane == .mainActor { books.queue.isMainActorDrainPosted = false }
      return work
    }
    if work != nil { _words.countQueued(by: -1) }
    return work
  }

  /// Removes the actions waiting on the owner lane, in order; for a batch, whose body queued
  /// them there.
  func popActionsFromOwnerLane() -> [any Action] {
    var actions: [any Action] = []
    while case .dispatch(let action) = _processLock._ownerLane.popFirst() {
      actions.append(action)
    }
    return actions
  }

  /// Runs what middleware dispatched re-entrantly, in order; the caller owns the process lock.
  @inlinable
  func drainOwnerLane(_ chain: DispatchFunction) {
    var count = 0
    while let work = popWork(from: .owner) {
      count += 1
      if count > _reentrantDispatchLimit {
        Misuse.runaway(work.firstAction, limit: _reentrantDispatchLimit)
      }
      guard case .dispatch(let action) = work else {
        preconditionFailure("\(work) on the owner lane")
      }
      chain(action)
    }
  }

  /// Runs work that waited in the `round` or `mainActor` lane, and what it queued on the owner
  /// lane, holding the process lock.
  ///
  /// Returns the version committed last, read while no other action could commit in between.
  @discardableResult
  func perform(_ work: Work, thread me: UInt) -> UInt64 {
    _processLock.whileOwning(me) {
      switch work {
      case .dispatch(let action):
        guard let chain else {
          #if DEBUG
            Reduction<State>.checkReducible(action)
          #endif
          return _reduction.commit(action)
        }
        chain(action)
        drainOwnerLane(chain)
      case .reduce(let action):
        _reduction.commit(action)
        if let chain { drainOwnerLane(chain) }
      case .batch(let actions):
        enqueue(actions.lazy.map { .dispatch($0) }, on: .owner)
        return commitOwnerLaneAsBatch(thread: me)
      }
      return _reduction.version
    }
  }

  // MARK: Main-actor reducers

  /// Whether `work` can be processed here and now: off the main queue, it is queued on the
  /// `mainActor` lane instead; on it, what other threads queued there runs first, unless a
  /// round runs (its dispatches wait behind it, C4, and the posted block runs the rest).
  @inlinable
  func readyForMainActor(_ work: @autoclosure () -> Work) -> Bool {
    guard MainQueue.isCurrent else {
      enqueue(work(), on: .mainActor)
      return false
    }
    catchUpOnMainActorLane()
    return true
  }

  @inlinable
  func catchUpOnMainActorLane() {
    if _words.hasQueuedWork, !_words.isRoundRunning {
      drainMainActorLane()
    }
  }

  /// Runs, on the main queue, everything other threads queued for a main-actor store, then
  /// notifies once.
  @usableFromInline
  func drainMainActorLane() {
    let me = currentThreadID()
    var performed = false
    while let work = popWork(from: .mainActor) {
      if case .dispatch(let action) = work { _reduction.checkNotReducing(.dispatch(action)) }
      perform(work, thread: me)
      performed = true
    }
    if performed { notify() }
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
    let isMain = MainQueue.isCurrent
    let inRound = isMain && _words.isRoundRunning
    if inRound || (_reducesOnMainActor && !isMain) {
      // Collected now, reduced together later: after the round's delivery (C4), or on the main
      // queue (C17).
      let actions = _processLock.whileOwning(me) {
        body()
        return popActionsFromOwnerLane()
      }
      if !actions.isEmpty { enqueue(.batch(actions), on: inRound ? .round : .mainActor) }
      return
    }
    if _reducesOnMainActor { catchUpOnMainActorLane() }
    _processLock.whileOwning(me) {
      body()
      _ = commitOwnerLaneAsBatch(thread: me)
    }
    notify()
  }

  /// The one batch drain: commits what waits on the owner lane as one batch; the caller owns
  /// the process lock.
  ///
  /// Without middleware, in one critical section of the state lock, so that no other thread's
  /// action falls between them and no reader sees a state in the middle. With middleware, one
  /// by one through the chain, with rounds elsewhere held off until the end
  /// (`isBatchOpenOnAnotherThread`). Returns the version committed last.
  func commitOwnerLaneAsBatch(thread me: UInt) -> UInt64 {
    if let chain {
      _words.owner.store(me | StoreWords.batching, ordering: .relaxed)
      defer { _words.owner.store(me, ordering: .releasing) }
      drainOwnerLane(chain)
      return _reduction.version
    }
    let actions = popActionsFromOwnerLane()
    #if DEBUG
      for action in actions { Reduction<State>.checkReducible(action) }
    #endif
    return _reduction.commitAll(actions)
  }

  /// Whether another thread is in the middle of a batch whose actions commit one by one, so that
  /// a round now could deliver a state in the middle of it.
  ///
  /// Only with middleware: without it a batch commits all its actions in one critical section.
  @inlinable
  var isBatchOpenOnAnotherThread: Bool {
    guard _words.chain.load(ordering: .relaxed) != 0 else { return false }
    let owner = _words.owner.load(ordering: .acquiring)
    return owner & StoreWords.batching != 0 && owner & ~StoreWords.batching != currentThreadID()
  }

  // MARK: Notifying

  /// Notifies subscribers of the newest state: at once on the main queue (C7), else in a round
  /// scheduled there (C5).
  @inlinable
  func notify() {
    guard _words.subscriptionCount > 0 else { return }
    if MainQueue.isCurrent {
      _mainLoop.runRound(self)
    } else {
      _mainLoop.scheduleRound(self)
    }
  }

  // MARK: Middleware

  /// The middleware chain in force, or `nil` without middleware.
  @inlinable
  var chain: DispatchFunction? {
    let box = _words.chain.load(ordering: .acquiring)
    guard box != 0 else { return nil }
    return withObject(at: box, as: ChainBox.self) { $0._run }
  }

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
}

/// The store's six atomic words, in one allocation, shared by its parts; each packs what the
/// dispatch path reads together.
///
/// | word | contents | written by |
/// | --- | --- | --- |
/// | `chain` | the address of the middleware chain in force, an unretained `ChainBox`; 0 without middleware (C16) | `middleware`'s setter, releasing |
/// | `owner` | the thread that owns the process lock, or 0; bit 0 (`batching`) while it commits a batch one action at a time | the owner |
/// | `mainFlags` | bit 0: a round runs; bit 1: a round runs its selectors under the state lock, which commits wait out by spinning | the main queue only |
/// | `earliestRound` | the time before which no scheduled round starts (C7) | scheduled rounds |
/// | `audience` | low 32 bits: subscriptions standing; high 32: changes of the registry's entries (a round compares it with its copy's; only exactly 2³² changes between two rounds go unseen) | the registry, under the bookkeeping lock |
/// | `signals` | bit 0: a round is due (C7); bits 1-31: work in the queue; bits 32-63: listeners waiting (`take`, `condition`, `actions()`) | any thread |
///
/// The words share a cache line: Benchmarks/README.md (workload n) has the figures for a store
/// dispatched to from several threads.
@usableFromInline @frozen
struct StoreWords: Sendable {
  @usableFromInline let _words: AtomicWords

  @usableFromInline
  init() {
    _words = AtomicWords(count: 6)
  }

  @inlinable var chain: AtomicWord<UInt> { _words[0] }
  @inlinable var owner: AtomicWord<UInt> { _words[1] }
  @inlinable var mainFlags: AtomicWord<UInt64> { _words[2] }
  @inlinable var earliestRound: AtomicWord<UInt64> { _words[3] }
  @inlinable var audience: AtomicWord<UInt64> { _words[4] }
  @inlinable var signals: AtomicWord<UInt64> { _words[5] }

  /// `owner`'s bit for a batch committing one action at a time; thread ids are aligned
  /// addresses, so bit 0 is free.
  @usableFromInline static let batching: UInt = 1
  /// `mainFlags`' bits.
  @usableFromInline static let running: UInt64 = 1
  @usableFromInline static let selecting: UInt64 = 2

  @inlinable var isRoundRunning: Bool {
    mainFlags.load(ordering: .relaxed) & Self.running != 0
  }

  @inlinable var isSelecting: Bool {
    mainFlags.load(ordering: .relaxed) & Self.selecting != 0
  }

  /// Sets or clears a bit of `mainFlags`; on the main queue only.
  @inlinable
  func setMainFlag(_ flag: UInt64, _ isSet: Bool) {
    if isSet {
      mainFlags.setBits(flag, ordering: .relaxed)
    } else {
      mainFlags.clearBits(flag, ordering: .relaxed)
    }
  }

  @inlinable var subscriptionCount: Int {
    subscriptionCount(ordering: .relaxed)
  }

  @inlinable
  func subscriptionCount(ordering: AtomicOrdering) -> Int {
    Int(truncatingIfNeeded: audience.load(ordering: ordering) & 0xFFFF_FFFF)
  }

  /// Adds `delta` to the subscriptions standing; returns the count before.
  @usableFromInline
  func countSubscriptions(by delta: Int) -> Int {
    let old = audience.add(
      UInt64(bitPattern: Int64(delta)), ordering: .sequentiallyConsistent
    ).oldValue
    return Int(truncatingIfNeeded: old & 0xFFFF_FFFF)
  }

  /// The number of changes of the registry's entries, modulo 2³².
  @inlinable var registryGeneration: UInt64 {
    audience.load(ordering: .acquiring) >> 32
  }

  @usableFromInline
  func registryChanged() {
    audience.add(1 << 32, ordering: .releasing)
  }

  @inlinable var hasQueuedWork: Bool {
    signals.load(ordering: .acquiring) & 0xFFFF_FFFE != 0
  }

  /// Adds `delta` to the work in the queue.
  @usableFromInline
  func countQueued(by delta: Int) {
    signals.add(UInt64(bitPattern: Int64(2 * delta)), ordering: .releasing)
  }

  @inlinable var hasListeners: Bool {
    signals.load(ordering: .relaxed) >> 32 != 0
  }

  /// Adds `delta` to the listeners waiting.
  @usableFromInline
  func countListeners(by delta: Int) {
    signals.add(UInt64(bitPattern: Int64(delta) << 32), ordering: .relaxed)
  }

  @inlinable var isRoundDue: Bool {
    signals.load(ordering: .relaxed) & 1 != 0
  }

  /// Marks a round due; returns whether it was not due before.
  @inlinable
  func markRoundDue() -> Bool {
    signals.setBits(1, ordering: .sequentiallyConsistent) & 1 == 0
  }

  @inlinable
  func clearRoundDue() {
    signals.clearBits(1, ordering: .sequentiallyConsistent)
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
  @usableFromInline var listeners = ListenerBook()

  @usableFromInline
  init(registry: Registry<State>) {
    self.registry = registry
  }

  /// Drops the subscriptions, the queued work and the middleware, for a store
  /// that is gone; the listeners stay, and their waits end as their tasks are cancelled.
  mutating func dropContents() {
    registry.removeAll()
    queue = WorkQueue()
    middleware = []
    chains = []
  }
}

// MARK: - The queue

/// Work that waits its turn.
@usableFromInline
enum Work: Sendable {
  /// An action for the middleware chain, or for the reducer without middleware.
  case dispatch(any Action)
  /// An action a middleware passed to `next` after its dispatch returned: for the reducer.
  case reduce(any Action)
  /// The actions of a `batch`, reduced together.
  case batch([any Action])

  @usableFromInline
  var firstAction: any Action {
    switch self {
    case .dispatch(let action), .reduce(let action): action
    case .batch(let actions): actions[0]
    }
  }
}

/// Where work waits, which says who runs it and when.
@usableFromInline
enum Lane: Int, Sendable {
  /// Dispatched by the thread that owns the process lock (a middleware, a batch's body): that
  /// thread runs it before it lets the lock go (C4).
  case owner
  /// Dispatched on the main queue while a round runs (a subscriber): the round runs it after
  /// its delivery (C4).
  case round
  /// A main-actor store's work from other threads: the main queue runs it before its next
  /// delivery (C17).
  case mainActor
}

/// The store's queue of deferred work in the `round` and `mainActor` lanes.
///
/// First in first out within each lane, behind the bookkeeping lock. The `owner` lane is the
/// process lock's (`ProcessLock._ownerLane`): only the thread that owns it touches it, so it
/// needs no lock.
///
/// Lanes keep work apart that different threads run at different times: a background thread
/// that owns the process lock must not run a subscriber's action in the middle of a round, and
/// a round must not run another thread's work for a main-actor store as part of its chain
/// (C14).
@usableFromInline
struct WorkQueue: Sendable {
  private var lanes = [FIFO<Work>](repeating: FIFO(), count: 2)
  /// Whether a block is posted to the main queue to run the `mainActor` lane.
  @usableFromInline var isMainActorDrainPosted = false

  @usableFromInline
  init() {}

  @usableFromInline
  mutating func append(_ work: Work, on lane: Lane) {
    lanes[lane.rawValue - 1].append(work)
  }

  @usableFromInline
  mutating func popFirst(from lane: Lane) -> Work? {
    lanes[lane.rawValue - 1].popFirst()
  }
}

/// One built middleware chain.
@usableFromInline
final class ChainBox: Sendable {
  @usableFromInline let _run: DispatchFunction

  @usableFromInline
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

  @usableFromInline @frozen
  struct Committed: Sendable {
    /// `nil` only until the init action is reduced, and while the reducer runs.
    @usableFromInline var _state: State?
    /// Counts commits; a round delivers a state only if its version is newer than the last.
    @usableFromInline var _version: UInt64 = 0
    #if DEBUG
      /// What the development checks of debug builds count (`DevelopmentChecks`).
      @usableFromInline var _checks = ReductionChecks()
    #endif

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
  @usableFromInline let _listeners: ActionListeners<State>
  @usableFromInline let _words: StoreWords

  /// The reducer of either shape as the function the store calls; inlinable, so that it is
  /// specialized for the app's `State`.
  @inlinable
  static func function(for reduce: Reduce) -> InPlace {
    switch reduce {
    case .returning(let reducer):
      { state, action in state = reducer(action, state.take()) }
    case .inPlace(let reducer):
      { state, action in
        guard var next = state.take() else { Misuse.noState() }
        reducer(&next, action)
        state = next
      }
    case .onMainQueue(let reduce):
      reduce
    }
  }

  @usableFromInline
  init(
    reduce: @escaping InPlace, state: State?, books: Locked<Books<State>>, words: StoreWords
  ) {
    _reduce = reduce
    _words = words
    _committed = Locked(Committed(state: state))
    _listeners = ActionListeners(books: books, words: words)
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  @inlinable
  var stateIfAny: State? {
    checkNotReducing(.readState)
    return _committed.withLock { $0._state }
  }

  /// Waits, spinning for at most about ten microseconds, until the round running its selectors
  /// under the state lock is done; the lock then sleeps if it is still held.
  @usableFromInline
  func waitForSelection() {
    for _ in 0..<500 where _words.isSelecting {
      sc_cpu_relax()
    }
  }

  /// A committed state and its version.
  @usableFromInline
  typealias Snapshot = (state: State, version: UInt64)

  /// The committed state and its version, read together.
  @inlinable
  var snapshot: Snapshot? {
    return _committed.withLock { committed in committed._state.map { ($0, committed._version) } }
  }

  /// Stops the program if the calling thread is running the reducer, or a round's selectors
  /// under the state lock (C11).
  @inlinable
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    if sc_reducing_reduction() == UnsafeRawPointer(bitPattern: address(of: self)) {
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
    defer { _words.setMainFlag(StoreWords.selecting, false) }
    return _committed.withLock { committed in
      guard let state = committed._state else { return nil }
      _words.setMainFlag(StoreWords.selecting, true)
      let outer = sc_begin_reducing(
        UnsafeRawPointer(bitPattern: address(of: self)), sc_selecting_marker())
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
    if _words.isSelecting { waitForSelection() }
    #if DEBUG
      var warning: String?
    #endif
    let result = _committed.withLock { committed in
      let version = commitLocked(&committed, copy, at: action)
      #if DEBUG
        warning = committed._checks.pending.take()
      #endif
      return read(committed, version)
    }
    #if DEBUG
      // Outside the lock: the warning handler may read the store.
      if let warning { StatecraftDiagnostics.warn(warning) }
    #endif
    if _words.hasListeners {
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
    #if DEBUG
      var warnings: [String] = []
    #endif
    let version = _committed.withLock { committed in
      for action in actions {
        _ = withUnsafePointer(to: action) { commitLocked(&committed, action, at: $0) }
        #if DEBUG
          if let warning = committed._checks.pending.take() { warnings.append(warning) }
        #endif
      }
      return committed._version
    }
    #if DEBUG
      for warning in warnings { StatecraftDiagnostics.warn(warning) }
    #endif
    if _words.hasListeners {
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
    let outer = sc_begin_reducing(
      UnsafeRawPointer(bitPattern: Statecraft.address(of: self)), address)
    #if DEBUG
      let started = DispatchTime.now().uptimeNanoseconds
    #endif
    _reduce(&committed._state, action)
    sc_end_reducing(outer)
    #if DEBUG
      let ended = DispatchTime.now().uptimeNanoseconds
      committed._checks.note(copy action, took: ended &- started, at: ended)
    #endif
    committed._version &+= 1
    if _words.hasListeners {
      _listeners.notifyObservers(copy action)
    }
    return committed._version
  }

  /// The version committed last.
  var version: UInt64 {
    return _committed.withLock { $0._version }
  }
}

#if DEBUG
  /// The development checks of debug builds that count reductions (`DevelopmentChecks`).
  ///
  /// A reduction on the main queue that takes longer than a frame, and an action type reduced
  /// more often than the limit within a second. Each is reported once per action type and store.
  ///
  /// Kept in the committed state's storage and changed under the state lock; a warning waits in
  /// `pending` until the lock is released.
  @usableFromInline @frozen
  struct ReductionChecks: Sendable {
    @usableFromInline var pending: String?
    @usableFromInline var windowStart: UInt64 = 0
    @usableFromInline var counts: [ObjectIdentifier: Int] = [:]
    @usableFromInline var reportedSlow: Set<ObjectIdentifier> = []
    @usableFromInline var reportedStorms: Set<ObjectIdentifier> = []

    @inlinable
    init() {}

    /// Notes a reduction of `action` that took `duration` nanoseconds and ended at `now`, and
    /// keeps a warning in `pending` if it breaks a limit for the first time.
    @inlinable
    mutating func note(_ action: any Action, took duration: UInt64, at now: UInt64) {
      let slow = sc_checks_slow_reduction()
      let limit = sc_checks_storm_limit()
      guard slow != 0 || limit != 0 else { return }
      let type = typeIdentifier(of: action)
      if slow != 0, duration > slow, MainQueue.isCurrent, reportedSlow.insert(type).inserted {
        pending = StatecraftDiagnostics.slowReduction(of: action, took: duration, limit: slow)
      }
      guard limit != 0 else { return }
      if now &- windowStart >= 1_000_000_000 {
        windowStart = now
        counts.removeAll(keepingCapacity: true)
      }
      let count = counts[type, default: 0] + 1
      counts[type] = count
      if count > limit, reportedStorms.insert(type).inserted {
        pending = StatecraftDiagnostics.actionStorm(of: action, limit: limit)
      }
    }
  }
#endif

/// and the thread that holds it, whose re-entrant dispatches wait on the owner lane (C2, C4).
///
/// Only stores with middleware take it to dispatch: without middleware nothing can dispatch
/// re-entrantly on the dispatching thread, so the state lock alone orders reductions.
@usableFromInline
final class ProcessLock: Sendable {
  @usableFromInline let _lock = Locked(())
  /// The thread that holds `_lock` in `owner`, or 0.
  @usableFromInline let _words: StoreWords
  /// The owner lane: touched only by the thread recorded in `owner`, which holds `_lock` for as
  /// long as it is recorded there.
  @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var _ownerLane = FIFO<Work>()

  @usableFromInline
  init(words: StoreWords) {
    _words = words
  }

  /// Whether `thread` holds the lock.
  @inlinable
  func isOwned(by thread: UInt) -> Bool {
    _words.owner.load(ordering: .relaxed) & ~StoreWords.batching == thread
  }

  /// Holds the lock and records `thread` as its owner while `body` runs.
  @inlinable
  func whileOwning<Result>(_ thread: UInt, _ body: () -> Result) -> Result {
    _lock.withLock {
      _words.owner.store(thread, ordering: .relaxed)
      defer { _words.owner.store(0, ordering: .relaxed) }
      return body()
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
