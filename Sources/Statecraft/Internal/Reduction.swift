import Synchronization

/// The committed state and the reducer that makes the next one.
///
/// Split from `StoreCore` so that the end of the middleware chain can hold it strongly: a
/// middleware that keeps `next` after the store is gone then reduces into this orphan, which no
/// one reads, instead of every dispatch paying for a weak reference.
///
/// `@unchecked Sendable`: `reducingActionType` is written only inside the state lock by the
/// thread recorded in `reducingThread`, and read only by that thread; `hasNewDeliveries` is read
/// and written only by the owner of the store's process lock (stores with middleware).
final class Reduction<State: Sendable>: @unchecked Sendable {
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

  let committed: Locked<Committed>
  /// The thread that holds the store's process lock, or 0 (stores with middleware only).
  let owner = Atomic<UInt>(0)
  private let reduce: Reduce
  private let reducingThread = Atomic<UInt>(0)
  private var reducingActionType: (any Action.Type)?
  var hasNewDeliveries = false

  init(reduce: Reduce, state: State?) {
    self.reduce = reduce
    self.committed = Locked(Committed(state: state))
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  var stateIfAny: State? {
    if reducingThread.load(ordering: .relaxed) == currentThreadID() {
      Misuse.stateReadInReducer(reducing: reducingActionType)
    }
    return committed.withLock { $0.state }
  }

  /// Stops the program if the calling thread is running the reducer (C11).
  @inline(__always)
  func checkNotReducing(_ action: any Action, thread: UInt) {
    if reducingThread.load(ordering: .relaxed) == thread {
      Misuse.dispatchInReducer(action, reducing: reducingActionType)
    }
  }

  /// Reduces `action`, commits the result, and queues it for delivery if anyone subscribes.
  ///
  /// Returns whether it queued a delivery.
  @discardableResult
  func commit(_ action: any Action, thread: UInt) -> Bool {
    committed.withLock { committed in
      reducingThread.store(thread, ordering: .relaxed)
      reducingActionType = type(of: action)
      switch reduce {
      case .returning(let reducer):
        committed.state = reducer(action, committed.state.take())
      case .inPlace(let reducer):
        guard var state = committed.state.take() else { Misuse.noState() }
        reducer(&state, action)
        committed.state = state
      }
      reducingThread.store(0, ordering: .relaxed)
      reducingActionType = nil
      committed.version &+= 1
      guard committed.subscriptionCount > 0, let state = committed.state else { return false }
      committed.deliveries.append((committed.version, state))
      return true
    }
  }
}
