import StatecraftPrimitives

// The turn to run the middleware and the reducer, and the work that waits for it: what
// Dispatch.swift and the rounds (Rounds.swift) run, below both.

/// The *process lock*: the turn to run the middleware and the reducer of one action at a time,
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

extension StoreCore {
  /// Whether the calling thread holds the turn: it runs the middleware and the reducer.
  @usableFromInline
  var isTurnHeld: Bool { _processLock.isOwned(by: currentThreadID()) }

  /// The middleware chain in force, or `nil` without middleware.
  @inlinable
  var chain: DispatchFunction? {
    let box = _words.chain.load(ordering: .acquiring)
    guard box != 0 else { return nil }
    return withObject(at: box, as: ChainBox.self) { $0._run }
  }

  /// Calls `body` with the box of the middleware chain in force, borrowed, or returns `nil`
  /// without middleware.
  ///
  /// The dispatch path's way to the chain: calling `_run` on the borrowed box takes no reference
  /// to it, where `chain` returns one to take and drop. The books keep every box built (C16).
  @inlinable @inline(__always)
  func withChainBox<Result>(_ body: (ChainBox) -> Result) -> Result? {
    let box = _words.chain.load(ordering: .acquiring)
    guard box != 0 else { return nil }
    return withObject(at: box, as: ChainBox.self, body)
  }

  /// Queues `work` on `lane`.
  ///
  /// Returns, for the `mainActor` lane, whether the caller is to post the block that runs it:
  /// none is posted yet (`enqueueForMainActor`).
  @inlinable @discardableResult
  func enqueue(_ work: Work, on lane: Lane) -> Bool {
    if lane == .owner {
      _processLock._ownerLane.append(work)
      return false
    }
    return enqueue(CollectionOfOne(work), on: lane)
  }

  /// Queues each of `works` on `lane`, in order, in one critical section; returns what
  /// `enqueue(_:on:)` returns.
  @usableFromInline @discardableResult
  func enqueue(_ works: some Collection<Work>, on lane: Lane) -> Bool {
    if lane == .owner {
      for work in works { _processLock._ownerLane.append(work) }
      return false
    }
    let post = _books.withLock { books in
      for work in works { books.queue.append(work, on: lane) }
      guard lane == .mainActor, !books.queue.isMainActorDrainPosted else { return false }
      books.queue.isMainActorDrainPosted = true
      return true
    }
    _words.countQueued(by: works.count)
    return post
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
  // Most actions queue nothing: an empty lane is then one comparison where the chain ran, not a
  // call, and an empty `Work?` made and destroyed.
  @inlinable @inline(__always)
  func drainOwnerLane(_ chain: DispatchFunction) {
    if !_processLock._ownerLane.isEmpty { drainQueuedOnOwnerLane(chain) }
  }

  @inlinable
  func drainQueuedOnOwnerLane(_ chain: DispatchFunction) {
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

  /// The one batch drain: commits what waits on the owner lane as one batch; the caller owns
  /// the process lock.
  ///
  /// Without middleware, in one critical section of the state lock, so that no other thread's
  /// action falls between them and no reader sees a state in the middle. With middleware, one
  /// by one through the chain, with rounds elsewhere held off until the end
  /// (`StoreWords.isBatchOpenOnAnotherThread`). Returns the version committed last.
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
}
