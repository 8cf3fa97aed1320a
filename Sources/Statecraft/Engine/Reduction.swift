import Synchronization

/// The committed state and the reducer that makes the next one.
///
/// Split from `StoreCore` so that the end of the middleware chain can hold it strongly: a
/// middleware that keeps `next` after the store is gone then reduces into this orphan, which no
/// one reads, instead of every dispatch paying for a weak reference.
///
/// `@unchecked Sendable`: its mutable parts are the committed state (behind the state lock) and
/// two slots, each owned by one thread at a time as their comments say.
@usableFromInline
final class Reduction<State: Sendable>: @unchecked Sendable {
  @usableFromInline
  enum Reduce {
    case returning(Reducer<State>)
    case inPlace(InPlaceReducer<State>)
  }

  @usableFromInline
  struct Committed {
    /// `nil` only until the init action is reduced, and while the reducer runs.
    @usableFromInline var state: State?
    @usableFromInline var version: UInt64 = 0
    @usableFromInline var deliveries = FIFO<(version: UInt64, state: State)>()
    @usableFromInline var subscriptionCount = 0
    @usableFromInline var isDrainScheduled = false
    /// The thread running ``Store/batch(_:)``, whose commits are delivered once, at its end.
    @usableFromInline var batchThread: UInt = 0
    @usableFromInline var batchChanged = false
    /// Whether only the latest undelivered state is kept (``Store/coalescesNotifications``).
    @usableFromInline var coalesces = false

    @inlinable
    init(state: State?) {
      self.state = state
    }
  }

  @usableFromInline let committed: Locked<Committed>
  /// The thread that holds the store's process lock, or 0 (stores with middleware only).
  @usableFromInline let owner: Atomic<UInt>
  @usableFromInline let reduce: Reduce
  @usableFromInline let reducingThread: Atomic<UInt>
  /// Written and read only by the thread in `reducingThread`, inside the state lock.
  @usableFromInline let reducingActionType: Slot<(any Action.Type)?>
  /// Written and read only by the owner of the store's process lock.
  @usableFromInline let hasNewDeliveries: Slot<Bool>
  @usableFromInline let listeners: ActionListeners

  @inlinable
  init(reduce: Reduce, state: State?) {
    self.reduce = reduce
    self.committed = Locked(Committed(state: state))
    owner = Atomic<UInt>(0)
    reducingThread = Atomic<UInt>(0)
    reducingActionType = Slot(nil)
    hasNewDeliveries = Slot(false)
    listeners = ActionListeners()
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  @inlinable
  var stateIfAny: State? {
    if reducingThread.load(ordering: .relaxed) == currentThreadID() {
      Misuse.stateReadInReducer(reducing: reducingActionType.pointer.pointee)
    }
    return committed.withLock { $0.state }
  }

  /// Stops the program if the calling thread is running the reducer and subscribes (C11).
  func checkNotSubscribingInReducer() {
    if reducingThread.load(ordering: .relaxed) == currentThreadID() {
      Misuse.subscribeInReducer(reducing: reducingActionType.pointer.pointee)
    }
  }

  /// Stops the program if the calling thread is running the reducer (C11).
  @inlinable
  func checkNotReducing(_ action: any Action, thread: UInt) {
    if reducingThread.load(ordering: .relaxed) == thread {
      Misuse.dispatchInReducer(action, reducing: reducingActionType.pointer.pointee)
    }
  }

  /// Reduces `action`, commits the result, and queues it for delivery if anyone subscribes.
  ///
  /// Returns whether it queued a delivery.
  @inlinable
  @discardableResult
  func commit(_ action: any Action, thread: UInt) -> Bool {
    #if DEBUG
      Misuse.checkNotThunk(action)
    #endif
    let delivered = committed.withLock { commitLocked(&$0, action, thread: thread) }
    if listeners.count.load(ordering: .relaxed) > 0 {
      listeners.notify(action)
    }
    return delivered
  }

  /// Reduces `action` into `committed`, which the caller has locked.
  @inlinable
  func commitLocked(_ committed: inout Committed, _ action: any Action, thread: UInt) -> Bool {
    reducingThread.store(thread, ordering: .relaxed)
    reducingActionType.pointer.pointee = type(of: action)
    switch reduce {
    case .returning(let reducer):
      committed.state = reducer(action, committed.state.take())
    case .inPlace(let reducer):
      guard var state = committed.state.take() else { Misuse.noState() }
      reducer(&state, action)
      committed.state = state
    }
    reducingThread.store(0, ordering: .relaxed)
    reducingActionType.pointer.pointee = nil
    committed.version &+= 1
    if listeners.observerCount.load(ordering: .relaxed) > 0 {
      listeners.notifyObservers(action)
    }
    if committed.batchThread == thread {
      committed.batchChanged = true
      return false
    }
    guard committed.subscriptionCount > 0, let state = committed.state else { return false }
    if committed.coalesces { committed.deliveries.removeAll() }
    committed.deliveries.append((committed.version, state))
    return true
  }

  /// Reduces `actions` in one critical section, so that no other thread's action falls
  /// between them.
  func commitAll(_ actions: [any Action], thread: UInt) {
    #if DEBUG
      for action in actions { Misuse.checkNotThunk(action) }
    #endif
    committed.withLock { committed in
      for action in actions { _ = commitLocked(&committed, action, thread: thread) }
    }
    if listeners.count.load(ordering: .relaxed) > 0 {
      for action in actions { listeners.notify(action) }
    }
  }

  /// Marks the start of a batch on `thread`: its commits are not delivered one by one.
  func beginBatch(thread: UInt) {
    committed.withLock { $0.batchThread = thread }
  }

  /// Ends the batch and queues one delivery of the final state if the batch changed it.
  ///
  /// Returns whether it queued a delivery.
  func endBatch() -> Bool {
    committed.withLock { committed in
      defer {
        committed.batchThread = 0
        committed.batchChanged = false
      }
      guard committed.batchChanged, committed.subscriptionCount > 0, let state = committed.state
      else { return false }
      if committed.coalesces { committed.deliveries.removeAll() }
      committed.deliveries.append((committed.version, state))
      return true
    }
  }
}
