import Dispatch
import Synchronization

/// The engine behind ``Store``: the process lock, the middleware chain, the delivery to the main
/// queue and the subscriptions.
///
/// `Docs/ConcurrencyModel.md` states the invariants this type keeps.
///
/// `@unchecked Sendable` because of two slots that no lock guards:
/// - `pending` is read and written only by the thread recorded in `reduction.owner`, which holds
///   `processLock` for the whole time it is recorded there;
/// - `chain` is written once, at the end of `init`, before the core is shared, and only read
///   after that.
/// Everything else is a `let` of a `Sendable` type (`Lock`, `Atomic`, `Reduction`).
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  @usableFromInline let reduction: Reduction<State>
  @usableFromInline let reentrantDispatchLimit: Int
  @usableFromInline let automaticallySkipsRepeats: Bool
  @usableFromInline let registry: Locked<Registry<State>>
  @usableFromInline let mainLoop: MainLoop<State>
  @usableFromInline let thunks: ThunkRunner
  /// Set while the main queue runs a notification round; lets `dispatch` skip the main-queue
  /// check when no round is running.
  @usableFromInline let isMainDelivering: Atomic<Bool>
  /// Mirrors `Committed.coalesces` for the delivery path, which does not take the state lock.
  let coalescesNotifications = Atomic<Bool>(false)

  @usableFromInline let processLock: Lock
  /// Read and written only by the thread in `reduction.owner`.
  @usableFromInline let pending: Slot<FIFO<any Action>>
  /// Set once, at the end of `init`, before the core is shared; only read after that.
  @usableFromInline let chain: Slot<DispatchFunction?>

  @usableFromInline var committed: Locked<Reduction<State>.Committed> { reduction.committed }

  @inlinable
  init(
    reduce: Reduction<State>.Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reentrantDispatchLimit: Int
  ) {
    reduction = Reduction(reduce: reduce, state: state)
    registry = Locked(Registry<State>())
    mainLoop = MainLoop<State>()
    thunks = ThunkRunner()
    isMainDelivering = Atomic<Bool>(false)
    processLock = Lock()
    pending = Slot(FIFO<any Action>())
    chain = Slot(nil)
    self.automaticallySkipsRepeats = automaticallySkipsRepeats
    self.reentrantDispatchLimit = reentrantDispatchLimit
    guard !middleware.isEmpty else { return }
    // Middleware may dispatch thunks as plain actions: start them rather than reduce them.
    let dispatch: DispatchFunction = { [weak self] in self?.dispatchFromMiddleware($0) }
    let getState: GetState<State> = { [weak self] in self?.reduction.stateIfAny }
    // A loop, not `reduce`: a closure that passes through a generic `Result` is wrapped in two
    // reabstraction thunks, on every call, at every step of the chain (44 instructions a step).
    var next = endOfChain()
    for middleware in middleware.reversed() {
      next = middleware(dispatch, getState)(next)
    }
    chain.pointer.pointee = next
  }

  deinit {
    // Running thunks hold the core weakly; once it is gone they are cancelled.
    thunks.cancelAll()
  }

  /// The function at the end of the middleware chain: reduces on the thread that holds the
  /// process lock, or, for a middleware that calls `next` later, takes the lock first.
  @inlinable
  func endOfChain() -> DispatchFunction {
    { [reduction, weak self] action in
      let me = currentThreadID()
      reduction.checkNotReducing(action, thread: me)
      if reduction.owner.load(ordering: .relaxed) == me {
        if reduction.commit(action, thread: me) {
          reduction.hasNewDeliveries.pointer.pointee = true
        }
      } else {
        self?.reduceLater(action, thread: me)
      }
    }
  }

  // MARK: Reading

  @inlinable
  var currentState: State {
    guard let state = reduction.stateIfAny else { Misuse.noState() }
    return state
  }

  // MARK: Dispatching

  @inlinable
  func dispatch(_ action: any Action) {
    let me = currentThreadID()
    reduction.checkNotReducing(action, thread: me)
    if reduction.owner.load(ordering: .relaxed) == me {
      pending.pointer.pointee.append(action)
      return
    }
    if isMainDelivering.load(ordering: .relaxed), enqueueIfDeliveringOnMain(action) {
      return
    }
    if process(action, me: me) { deliverOrScheduleDelivery() }
  }

  /// Queues `action` on the main loop if this is the main queue and a notification round runs (C4).
  ///
  /// Returns whether it did.
  @usableFromInline
  func enqueueIfDeliveringOnMain(_ action: any Action) -> Bool {
    guard MainQueue.isCurrent else { return false }
    return MainActor.assumeIsolated { mainLoop.enqueueIfDelivering(action) }
  }

  /// Runs `action` through the chain and then every action queued meanwhile.
  ///
  /// Returns whether any commit waits for delivery.
  @inlinable
  @discardableResult
  func process(_ action: any Action, me: UInt) -> Bool {
    guard let chain = chain.pointer.pointee else {
      // Without middleware nothing can dispatch re-entrantly on this thread (a reducer may not;
      // subscribers queue on the main loop), so the state lock alone orders the reductions.
      return reduction.commit(action, thread: me)
    }
    return whileOwning(me) {
      chain(action)
      drainPending(chain)
    }
  }

  @inlinable
  func drainPending(_ chain: DispatchFunction) {
    var count = 0
    while let next = pending.pointer.pointee.popFirst() {
      count += 1
      if count > reentrantDispatchLimit {
        Misuse.runaway(next, limit: reentrantDispatchLimit)
      }
      chain(next)
    }
  }

  /// Holds the process lock and records the calling thread as its owner while `body` runs.
  ///
  /// Returns whether `body` committed a state that waits for delivery.
  @inlinable
  func whileOwning(_ me: UInt, _ body: () -> Void) -> Bool {
    processLock.withLock {
      reduction.owner.store(me, ordering: .relaxed)
      reduction.hasNewDeliveries.pointer.pointee = false
      body()
      reduction.owner.store(0, ordering: .relaxed)
      return reduction.hasNewDeliveries.pointer.pointee
    }
  }

  /// Reduces an action that a middleware passed on after its dispatch returned.
  @usableFromInline
  func reduceLater(_ action: any Action, thread me: UInt) {
    guard let chain = chain.pointer.pointee else { return }
    let delivered = whileOwning(me) {
      if reduction.commit(action, thread: me) { reduction.hasNewDeliveries.pointer.pointee = true }
      drainPending(chain)
    }
    if delivered { deliverOrScheduleDelivery() }
  }

  /// Makes sure the store has a state after the init action went through the middleware: a
  /// middleware that swallowed or delayed it leaves none, so the reducer gets it directly.
  @usableFromInline
  func reduceInitIfNeeded() {
    let hasState = committed.withLock { $0.state != nil }
    guard !hasState else { return }
    let me = currentThreadID()
    _ = whileOwning(me) { reduction.commit(StatecraftInit(), thread: me) }
  }

  // MARK: Delivering

  @usableFromInline
  func deliverOrScheduleDelivery() {
    if MainQueue.isCurrent, !coalescesNotifications.load(ordering: .relaxed) {
      MainActor.assumeIsolated { mainLoop.drain(self) }
      return
    }
    let schedule = committed.withLock { committed in
      defer { committed.isDrainScheduled = true }
      return !committed.isDrainScheduled
    }
    guard schedule else { return }
    DispatchQueue.main.async { [weak self] in
      guard let self else { return }
      committed.withLock { $0.isDrainScheduled = false }
      MainActor.assumeIsolated { mainLoop.drain(self) }
    }
  }

  func popDelivery() -> (version: UInt64, state: State)? {
    committed.withLock { $0.deliveries.popFirst() }
  }
}

/// The part of a store that lives on the main queue: the notification loop and the actions
/// dispatched from inside it.
@MainActor
@usableFromInline
final class MainLoop<State: Sendable> {
  private var isDelivering = false
  private var actions = FIFO<any Action>()

  @usableFromInline
  nonisolated init() {}

  /// Queues `action` if a notification round is running (C4).
  ///
  /// Returns whether it did.
  func enqueueIfDelivering(_ action: any Action) -> Bool {
    guard isDelivering else { return false }
    actions.append(action)
    return true
  }

  /// Delivers every waiting commit in order, then processes the actions subscribers dispatched,
  /// delivering their commits too, until nothing is left.
  ///
  /// Does nothing if already running.
  func drain(_ core: StoreCore<State>) {
    guard !isDelivering else { return }
    isDelivering = true
    core.isMainDelivering.store(true, ordering: .relaxed)
    defer {
      isDelivering = false
      core.isMainDelivering.store(false, ordering: .relaxed)
    }
    var processed = 0
    let me = currentThreadID()
    while true {
      if let delivery = core.popDelivery() {
        notify(core, delivery.state, version: delivery.version)
      } else if let action = actions.popFirst() {
        processed += 1
        if processed > core.reentrantDispatchLimit {
          Misuse.runaway(action, limit: core.reentrantDispatchLimit)
        }
        core.process(action, me: me)
      } else {
        return
      }
    }
  }

  private func notify(_ core: StoreCore<State>, _ state: State, version: UInt64) {
    let entries = core.registry.withLock { $0.entries }
    // A buffer, not the array's generic iterator: this code is not specialized for `State`, and
    // the iterator's unspecialized calls cost as much as a delivery.
    entries.withUnsafeBufferPointer { entries in
      for index in entries.indices where !entries[index].deliver(state, version: version) {
        // The subscriber was found deallocated: drop its entry.
        core.remove(entries[index])
      }
    }
  }
}
