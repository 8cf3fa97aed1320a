import Dispatch
import StatecraftPrimitives

// One action's way through a root store, in the order it meets them: the entry from `Store`
// (through `Engine`), the turn, the middleware chain and the reducer (Queue.swift,
// Reduction.swift), then the notification (Rounds.swift). Docs/Architecture.md walks it through
// the files.

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
}

extension StoreCore {
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
    // A thunk dispatched as `any Action`: started, as with its own type, never reduced.
    if !ActionKind.isReducible(at: action), let _route, _route(action.pointee, self) { return }
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

  /// The dispatch a middleware and a scope receive: the store's own.
  @usableFromInline
  func dispatchFromMiddleware(_ action: any Action) {
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
    let ran: Void? = withChainBox { box in
      _processLock.whileOwning(me) {
        box._run(action.pointee)
        drainOwnerLane(box._run)
      }
    }
    guard ran != nil else {
      // Without middleware nothing can dispatch re-entrantly on this thread (a reducer may not;
      // subscribers queue on the round lane), so the state lock alone orders the reductions.
      #if DEBUG
        Reduction<State>.checkReducible(action.pointee)
      #endif
      return _reduction.commit(at: action) { committed, version in
        readingState ? committed._state.map { ($0, version) } : nil
      }
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

  // MARK: Main-actor reducers

  /// Whether `work` can be processed here and now: off the main queue, it is queued on the
  /// `mainActor` lane instead; on it, what other threads queued there runs first, unless a
  /// round runs (its dispatches wait behind it, C4, and the posted block runs the rest).
  @inlinable
  func readyForMainActor(_ work: @autoclosure () -> Work) -> Bool {
    guard MainQueue.isCurrent else {
      enqueueForMainActor(work())
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

  /// Queues `work` on the `mainActor` lane, and makes sure a block on the main queue will run it.
  @usableFromInline
  func enqueueForMainActor(_ work: Work) {
    if enqueue(work, on: .mainActor) {
      DispatchQueue.main.async { [weak self] in self?.drainMainActorLane() }
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
  @usableFromInline
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
      if actions.isEmpty { return }
      if inRound {
        enqueue(.batch(actions), on: .round)
      } else {
        enqueueForMainActor(.batch(actions))
      }
      return
    }
    if _reducesOnMainActor { catchUpOnMainActorLane() }
    _processLock.whileOwning(me) {
      body()
      _ = commitOwnerLaneAsBatch(thread: me)
    }
    notify()
  }
}
