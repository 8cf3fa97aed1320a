import Dispatch
import Synchronization

/// The part of a store that lives on the main queue: notification rounds, the mark that one is
/// due, and the actions subscribers dispatch during a round.
///
/// A *round* delivers the newest committed state to every subscription, then processes the
/// actions its subscribers dispatched (C4). If no other thread committed meanwhile, the state
/// those actions made is delivered at once, as a follow-up round of the same chain; otherwise the
/// round ends and schedules another, so other threads' traffic never holds the main queue for
/// longer than one round (C5, C7).
@MainActor
@usableFromInline
final class MainLoop<State: Sendable> {
  @usableFromInline
  enum Work {
    case action(any Action)
    /// The actions of a `batch` called during a round, reduced together.
    case batch([any Action])
  }

  /// Whether a round is scheduled on the main queue and has not started yet.
  ///
  /// Any thread sets it; the round clears it before it reads the state, so a commit after that
  /// read schedules another round.
  @usableFromInline nonisolated let _isRoundDue = Atomic<Bool>(false)
  /// Mirrors `isRunning` for `dispatch`, which must not ask for the main queue on every call.
  @usableFromInline nonisolated let _isRunningMirror = Atomic<Bool>(false)

  private var isRunning = false {
    didSet { _isRunningMirror.store(isRunning, ordering: .relaxed) }
  }
  private var queued = FIFO<Work>()
  /// The actions of a `batch` whose body runs during a round.
  private var batchActions: [any Action]?
  private var deliveredVersion: UInt64 = 0

  @usableFromInline
  nonisolated init() {}

  // MARK: Scheduling

  /// Makes sure a round runs on the main queue soon; at most one waits at a time.
  @usableFromInline
  nonisolated func scheduleRound(_ core: StoreCore<State>) {
    guard !_isRoundDue.load(ordering: .relaxed),
      !_isRoundDue.exchange(true, ordering: .sequentiallyConsistent)
    else { return }
    DispatchQueue.main.async { [weak core] in
      guard let core else { return }
      MainActor.assumeIsolated { core.mainLoop.runRound(core) }
    }
  }

  /// Queues `action` if a round is running (C4).
  ///
  /// Returns whether it did.
  func enqueueIfRunning(_ action: any Action) -> Bool {
    guard isRunning else { return false }
    if batchActions != nil {
      batchActions?.append(action)
    } else {
      queued.append(.action(action))
    }
    return true
  }

  /// Starts collecting the actions of a `batch` body called during a round.
  ///
  /// Returns `false` if no round runs, or if a batch already collects (the inner one joins it).
  func beginBatchIfRunning() -> Bool {
    guard isRunning, batchActions == nil else { return false }
    batchActions = []
    return true
  }

  /// Queues the collected actions of the batch as one piece of work.
  func endBatch() {
    let actions = batchActions ?? []
    batchActions = nil
    if !actions.isEmpty { queued.append(.batch(actions)) }
  }

  /// Whether a round runs and collects a batch: a batch inside it joins.
  var isCollectingBatch: Bool {
    isRunning && batchActions != nil
  }

  // MARK: Rounds

  /// Delivers the newest committed state if it is newer than the last delivered, then runs the
  /// chain of actions subscribers dispatch.
  ///
  /// Does nothing when a round already runs: that round delivers the newest state.
  @usableFromInline
  func runRound(_ core: StoreCore<State>) {
    guard !isRunning else { return }
    _isRoundDue.store(false, ordering: .sequentiallyConsistent)
    guard !core.isBatchOpenOnAnotherThread else { return }  // its end schedules a round
    isRunning = true
    defer { isRunning = false }
    deliverNewest(core, ifVersion: nil)
    runChain(core)
  }

  /// Delivers the state a new subscription starts from, as a round of its own unless one runs.
  func deliverFirst(_ core: StoreCore<State>, to entry: SubscriptionEntry<State>, _ state: State) {
    guard !isRunning else {
      entry.deliverInitial(state)  // part of the running round; its dispatches queue there
      return
    }
    isRunning = true
    defer { isRunning = false }
    entry.deliverInitial(state)
    runChain(core)
  }

  /// Processes the actions subscribers dispatched, delivering the state they made, until none
  /// are left or another thread's commit mixes in (C4, C11).
  private func runChain(_ core: StoreCore<State>) {
    var length = 0
    while !queued.isEmpty {
      var version: UInt64 = 0
      while let work = queued.popFirst() {
        length += 1
        if length > core.reentrantDispatchLimit {
          Misuse.runaway(work.firstAction, limit: core.reentrantDispatchLimit)
        }
        version = core.processQueued(work)
      }
      guard deliverNewest(core, ifVersion: version) else {
        // Another thread committed since: its state is not this chain's to deliver now.
        scheduleRound(core)
        return
      }
    }
  }

  /// Delivers the newest state if it is newer than the last delivered and, when `expected` is
  /// given, if it is that version.
  ///
  /// Returns `false` only when `expected` did not match.
  @discardableResult
  private func deliverNewest(_ core: StoreCore<State>, ifVersion expected: UInt64?) -> Bool {
    guard let (state, version) = core.reduction.snapshot else { return true }
    if let expected, version != expected { return false }
    guard version > deliveredVersion else { return true }
    deliveredVersion = version
    let entries = core.registry.withLock { $0.entries }
    // A buffer, not the array's generic iterator: cheaper where this code is not specialized.
    entries.withUnsafeBufferPointer { entries in
      for index in entries.indices where !entries[index].deliver(state, version: version) {
        core.remove(entries[index])  // the subscriber was found deallocated
      }
    }
    return true
  }
}

extension MainLoop.Work {
  var firstAction: any Action {
    switch self {
    case .action(let action): action
    case .batch(let actions): actions[0]
    }
  }
}
