import Dispatch
import Synchronization

/// The engine behind ``Store``: the process lock, the committed state, the delivery list and the
/// subscriptions.
///
/// `Docs/ConcurrencyModel.md` states the invariants this type keeps.
///
/// `@unchecked Sendable` because of three stored properties that no lock guards:
/// - `pending`, `reducingActionType` and `hasNewDeliveries` are read and written only by the
///   thread recorded in `owner`, which holds `processLock` for the whole time it is recorded
///   there;
/// - `chain` is written once, at the end of `init`, before the core is shared, and only read
///   after that.
/// Everything else is a `let` of a `Sendable` type (`Locked`, `Atomic`, `@Sendable` closures).
final class StoreCore<State: Sendable>: @unchecked Sendable {
  enum Reduce {
    case returning(Reducer<State>)
    case inPlace(InPlaceReducer<State>)
  }

  struct Committed {
    /// `nil` only until the init action is reduced, and while the reducer runs.
    var state: State?
    var version: UInt64 = 0
    var deliveries = FIFO<(version: UInt64, state: State)>()
    var subscriptionCount = 0
    var isDrainScheduled = false
  }

  let reentrantDispatchLimit: Int
  let automaticallySkipsRepeats: Bool
  let committed: Locked<Committed>
  let registry = Locked(Registry<State>())
  let mainLoop = MainLoop<State>()

  private let reduce: Reduce
  private let processLock = Lock()
  private let owner = Atomic<UInt>(0)
  private let reducingThread = Atomic<UInt>(0)
  /// Set while the main queue runs a notification round; lets `dispatch` skip the main-queue
  /// check when no round is running.
  let isMainDelivering = Atomic<Bool>(false)

  private var pending = FIFO<any Action>()
  private var reducingActionType: (any Action.Type)?
  private var hasNewDeliveries = false
  private var chain: DispatchFunction?

  init(
    reduce: Reduce,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool,
    reentrantDispatchLimit: Int
  ) {
    self.reduce = reduce
    self.committed = Locked(Committed(state: state))
    self.automaticallySkipsRepeats = automaticallySkipsRepeats
    self.reentrantDispatchLimit = reentrantDispatchLimit
    guard !middleware.isEmpty else { return }
    let dispatch: DispatchFunction = { [weak self] in self?.dispatch($0) }
    let getState: GetState<State> = { [weak self] in self?.stateIfAny }
    let last: DispatchFunction = { [weak self] in self?.reduceFromMiddleware($0) }
    chain = middleware.reversed().reduce(last) { next, middleware in
      middleware(dispatch, getState)(next)
    }
  }

  // MARK: Reading

  var currentState: State {
    guard let state = stateIfAny else { Misuse.noState() }
    return state
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  var stateIfAny: State? {
    if reducingThread.load(ordering: .relaxed) == currentThreadID() {
      Misuse.stateReadInReducer(reducing: reducingActionType)
    }
    return committed.withLock { $0.state }
  }

  // MARK: Dispatching

  func dispatch(_ action: any Action) {
    let me = currentThreadID()
    if reducingThread.load(ordering: .relaxed) == me {
      Misuse.dispatchInReducer(action, reducing: reducingActionType)
    }
    if owner.load(ordering: .relaxed) == me {
      pending.append(action)
      return
    }
    if isMainDelivering.load(ordering: .relaxed), MainQueue.isCurrent {
      let queued = MainActor.assumeIsolated { mainLoop.enqueueIfDelivering(action) }
      if queued { return }
    }
    let delivered = process(action, me: me)
    if delivered { deliverOrScheduleDelivery() }
  }

  /// Runs `action` through the chain and then every action queued meanwhile, holding the process
  /// lock.
  ///
  /// Returns whether any commit waits for delivery.
  @discardableResult
  func process(_ action: any Action, me: UInt) -> Bool {
    whileOwning(me) {
      runChain(action)
      drainPending()
    }
  }

  private func runChain(_ action: any Action) {
    if let chain {
      chain(action)
    } else {
      reduceLocked(action)
    }
  }

  private func drainPending() {
    var count = 0
    while let next = pending.popFirst() {
      count += 1
      if count > reentrantDispatchLimit {
        Misuse.runaway(next, limit: reentrantDispatchLimit)
      }
      runChain(next)
    }
  }

  /// Holds the process lock and records the calling thread as its owner while `body` runs.
  ///
  /// Returns whether `body` committed a state that waits for delivery.
  private func whileOwning(_ me: UInt, _ body: () -> Void) -> Bool {
    processLock.withLock {
      owner.store(me, ordering: .relaxed)
      hasNewDeliveries = false
      body()
      owner.store(0, ordering: .relaxed)
      return hasNewDeliveries
    }
  }

  /// The end of the middleware chain.
  ///
  /// Called on the owner thread while the chain runs, or later from anywhere by a middleware that
  /// delayed the action.
  private func reduceFromMiddleware(_ action: any Action) {
    let me = currentThreadID()
    if reducingThread.load(ordering: .relaxed) == me {
      Misuse.dispatchInReducer(action, reducing: reducingActionType)
    }
    if owner.load(ordering: .relaxed) == me {
      reduceLocked(action)
      return
    }
    let delivered = whileOwning(me) {
      reduceLocked(action)
      drainPending()
    }
    if delivered { deliverOrScheduleDelivery() }
  }

  /// Reduces `action` and commits the result.
  ///
  /// Only the owner thread calls this.
  private func reduceLocked(_ action: any Action) {
    reducingThread.store(currentThreadID(), ordering: .relaxed)
    reducingActionType = type(of: action)
    defer {
      reducingThread.store(0, ordering: .relaxed)
      reducingActionType = nil
    }
    let delivered = committed.withLock { committed in
      switch reduce {
      case .returning(let reducer):
        committed.state = reducer(action, committed.state.take())
      case .inPlace(let reducer):
        guard var state = committed.state.take() else { Misuse.noState() }
        reducer(&state, action)
        committed.state = state
      }
      committed.version &+= 1
      guard committed.subscriptionCount > 0, let state = committed.state else { return false }
      committed.deliveries.append((committed.version, state))
      return true
    }
    if delivered { hasNewDeliveries = true }
  }

  /// Makes sure the store has a state after the init action went through the middleware: a
  /// middleware that swallowed or delayed it leaves none, so the reducer gets it directly.
  func reduceInitIfNeeded() {
    let hasState = committed.withLock { $0.state != nil }
    guard !hasState else { return }
    _ = whileOwning(currentThreadID()) { reduceLocked(StatecraftInit()) }
  }

  // MARK: Delivering

  private func deliverOrScheduleDelivery() {
    if MainQueue.isCurrent {
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
final class MainLoop<State: Sendable> {
  private var isDelivering = false
  private var actions = FIFO<any Action>()

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
    for entry in entries {
      entry.deliver(state, version: version)
      if !entry.isActive.load(ordering: .relaxed), !entry.isRemoved.load(ordering: .relaxed) {
        core.remove(entry)
      }
    }
  }
}
