import Dispatch

// Inlinable, so that the app compiles the path of an action for its own `State`: built
// generic in the library, a main-thread dispatch with one subscriber took 10,772 instructions
// instead of 1,099 and allocated, a dispatch from another thread 1,637 instead of 339
// (callgrind, Benchmarks/README.md, "Why the engine is inlinable").

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
