import StatecraftPrimitives

/// One run of a thunk: its identifier and number, its flags, and what it links to while it runs.
///
/// One object: the flags are atomic, so that each of the run's dispatches asks whether it was
/// cancelled without a lock; the links change under the lock of its runner, which every run of
/// a store shares, so that a run takes that lock once to start and once to end.
typealias ThunkRun = SharedLockRecord<ThunkRunConstants, ThunkRunLinks>

struct ThunkRunConstants: Sendable {
  let id: ThunkID?
  /// The run's number in its runner.
  let serial: UInt64
  let runner: ThunkRunner
  /// Dispatches an action of the run's body to its store: its host's, made once per store.
  let dispatch: @Sendable (any Action, ThunkRun) -> Void
}

/// What a run links to while it runs, under its runner's lock; dropped when it finishes, so that
/// a finished run holds no task, closure, parent, child or neighbour.
struct ThunkRunLinks: Sendable {
  /// Why the run was cancelled, set by the first cancellation.
  var cancellationReason: ThunkCancellationReason?
  var cancelTask: (@Sendable () -> Void)?
  /// Dispatches the run's `cancelled` lifecycle action, for an `AsyncThunk`.
  var announceCancellation: (@Sendable () -> Void)?
  /// The unfinished thunks this run dispatched, by serial; each removes itself as it finishes.
  var children: [UInt64: ThunkRun] = [:]
  var childrenWaiters: [CheckedContinuation<Void, Never>] = []
  /// The run that dispatched this one, while both run.
  var parent: ThunkRun?
  /// Who waits for the run to finish: the next run of a queue.
  var finishWaiters: [CheckedContinuation<Void, Never>] = []
  /// Whether the run is in its runner's list, which cancelling by identifier and releasing the
  /// store reach, and its neighbours there.
  var isRegistered = false
  var older: ThunkRun?
  var newer: ThunkRun?
}

/// The bits of a run's flags.
enum RunFlag {
  static var cancelled: UInt64 { 1 }
  /// Set by whichever lifecycle action ends the run first: fulfilled, rejected or cancelled.
  static var ended: UInt64 { 2 }
  /// The run's body, and the task that ran it if any, have ended.
  static var finished: UInt64 { 4 }
  /// A thunk the run dispatched has not finished.
  static var hasChildren: UInt64 { 8 }
  /// Something else than its own task may reach the run.
  ///
  /// The runner's list, its task's cancellation, a parent or a waiter. Set under the runner's
  /// lock; a run that finishes without it finishes without the lock.
  static var linked: UInt64 { 16 }
}

extension SharedLockRecord where Constants == ThunkRunConstants, Guarded == ThunkRunLinks {
  convenience init(
    id: ThunkID?, serial: UInt64, runner: ThunkRunner,
    dispatch: @escaping @Sendable (any Action, ThunkRun) -> Void
  ) {
    self.init(
      ThunkRunConstants(id: id, serial: serial, runner: runner, dispatch: dispatch),
      ThunkRunLinks())
  }

  var id: ThunkID? { constants.id }
  var serial: UInt64 { constants.serial }
  var runner: ThunkRunner { constants.runner }

  var isCancelled: Bool {
    flags.load(ordering: .acquiring) & RunFlag.cancelled != 0
  }

  /// Throws `CancellationError` if the run has been cancelled; for the runner, whose code would
  /// look `ThunkContext<State>` up at run time to ask the context.
  func checkCancellation() throws {
    if isCancelled { throw CancellationError() }
  }

  var hasChildren: Bool {
    flags.load(ordering: .acquiring) & RunFlag.hasChildren != 0
  }

  var isFinished: Bool {
    flags.load(ordering: .acquiring) & RunFlag.finished != 0
  }

  /// Whether the caller is the first to end the run's lifecycle; each run ends once.
  func claimEnd() -> Bool {
    flags.setBits(RunFlag.ended, ordering: .acquiringAndReleasing) & RunFlag.ended == 0
  }

  /// The `dispatch` the run's body receives: it drops actions once the run is cancelled, and
  /// starts the thunks among them as the run's children.
  ///
  /// It captures the run alone, so making it allocates nothing.
  var dispatchFunction: DispatchFunction {
    { [self] action in
      guard !isCancelled else { return }
      constants.dispatch(action, self)
    }
  }

  var cancellationReason: ThunkCancellationReason? {
    runner.withLinks(of: self) { $0.cancellationReason }
  }

  /// Marks the run cancelled, cancels its task and its children.
  ///
  /// Idempotent. An `AsyncThunk`'s `cancelled` action is dispatched here, on the cancelling
  /// thread, before this returns: a run superseded by a new one with the same id is always
  /// announced cancelled before the new one's `pending`.
  func cancel(_ reason: ThunkCancellationReason) {
    runner.cancel(self, reason)
  }

  /// Returns once the run has finished.
  func waitUntilFinished() async {
    guard !isFinished else { return }
    await withCheckedContinuation { continuation in
      runner.resumeWhenFinished(self, continuation)
    }
  }

  /// Waits until every thunk this run dispatched has finished, including those they dispatch
  /// meanwhile.
  func waitForChildren() async {
    // Without children, no suspension: it would send the task back to its executor, off the
    // thread a `Task.immediate` run started on.
    guard hasChildren else { return }
    await withCheckedContinuation { continuation in
      runner.resumeWhenChildrenFinished(self, continuation)
    }
  }
}

/// A run's links, under the runner's lock.
extension ThunkRunner {
  func withLinks<Result>(of run: ThunkRun, _ body: (inout ThunkRunLinks) -> Result) -> Result {
    state.withLock { state in run.withGuarded(holding: &state, body) }
  }

  /// Puts `run` in the list that cancelling by identifier and releasing the store reach.
  func link(_ run: ThunkRun, in state: inout State) {
    run.flags.setBits(RunFlag.linked, ordering: .acquiringAndReleasing)
    let older = state.newest
    run.withGuarded(holding: &state) { links in
      links.isRegistered = true
      links.older = older
    }
    older?.withGuarded(holding: &state) { $0.newer = run }
    state.newest = run
  }

  /// Calls `body` with each registered run, newest first.
  func forEachRegistered(in state: inout State, _ body: (ThunkRun) -> Void) {
    var next = state.newest
    while let run = next {
      body(run)
      next = run.withGuarded(holding: &state) { $0.older }
    }
  }

  func cancel(_ run: ThunkRun, _ reason: ThunkCancellationReason) {
    let taken = state.withLock { state in
      run.withGuarded(holding: &state) {
        links -> (
          cancelTask: (@Sendable () -> Void)?, announce: (@Sendable () -> Void)?,
          children: [ThunkRun]
        )? in
        let before = run.flags.setBits(RunFlag.cancelled, ordering: .acquiringAndReleasing)
        if before & RunFlag.cancelled != 0 { return nil }
        links.cancellationReason = reason
        return (links.cancelTask, links.announceCancellation, Array(links.children.values))
      }
    }
    guard let (cancelTask, announce, children) = taken else { return }
    for child in children { cancel(child, .parentCancelled) }
    if let announce, run.claimEnd() { announce() }
    cancelTask?()
  }

  /// Records that the run has ended: takes it out of the list, resumes those waiting for it,
  /// leaves its parent, and drops every link, which breaks the cycles a running run is part of
  /// (its task and its lifecycle closure hold it, it holds them).
  func finish(_ run: ThunkRun) {
    // Unlinked, nothing but the caller reaches the run: `attach`, under the lock, sees it
    // finished and links nothing.
    let before = run.flags.setBits(RunFlag.finished, ordering: .acquiringAndReleasing)
    guard before & RunFlag.linked != 0 else { return }
    let (waiters, parentWaiters) = state.withLock { state in
      let (waiters, parent) = run.withGuarded(holding: &state) {
        links -> ([CheckedContinuation<Void, Never>], ThunkRun?) in
        let taken = (links.finishWaiters, links.parent)
        links.finishWaiters = []
        links.parent = nil
        links.cancelTask = nil
        links.announceCancellation = nil
        return taken
      }
      unlink(run, in: &state)
      let parentWaiters = parent.map { removeChild(run.serial, of: $0, in: &state) } ?? []
      return (waiters, parentWaiters)
    }
    for waiter in waiters { waiter.resume() }
    for waiter in parentWaiters { waiter.resume() }
  }

  private func unlink(_ run: ThunkRun, in state: inout State) {
    let neighbours = run.withGuarded(holding: &state) { links -> (ThunkRun?, ThunkRun?)? in
      guard links.isRegistered else { return nil }
      defer {
        links.isRegistered = false
        links.older = nil
        links.newer = nil
      }
      return (links.older, links.newer)
    }
    guard let (older, newer) = neighbours else { return }
    older?.withGuarded(holding: &state) { $0.newer = newer }
    newer?.withGuarded(holding: &state) { $0.older = older }
    if state.newest === run { state.newest = older }
  }

  /// Takes a finished child out of its parent; returns those waiting for the parent's children
  /// if it was the last.
  private func removeChild(_ serial: UInt64, of parent: ThunkRun, in state: inout State)
    -> [CheckedContinuation<Void, Never>]
  {
    parent.withGuarded(holding: &state) { links in
      links.children[serial] = nil
      guard links.children.isEmpty else { return [] }
      parent.flags.clearBits(RunFlag.hasChildren, ordering: .acquiringAndReleasing)
      defer { links.childrenWaiters = [] }
      return links.childrenWaiters
    }
  }

  /// Links a run's task, so that cancelling the run cancels it, the run to the run that
  /// dispatched it, so that waiting for the parent waits for it and cancelling the parent
  /// cancels it, and a run admitted without a list entry into the list; cancels the task at
  /// once if the run already is cancelled.
  ///
  /// A run without an identifier enters the list here rather than when admitted: one lock for
  /// both. Until then only its own task reaches it, which may already have finished it.
  func attach(_ run: ThunkRun, cancelTask: @escaping @Sendable () -> Void, parent: ThunkRun?) {
    let cancelsChild = state.withLock { state in
      let before = run.flags.setBits(RunFlag.linked, ordering: .acquiringAndReleasing)
      let isFinished = before & RunFlag.finished != 0
      let isRegistered = run.withGuarded(holding: &state) { links in
        if !isFinished {
          links.cancelTask = cancelTask
          links.parent = parent
        }
        return links.isRegistered
      }
      if !isFinished, !isRegistered { link(run, in: &state) }
      guard let parent, !isFinished else { return false }
      // The child finds this parent when it finishes, under the same lock: it is removed
      // exactly once.
      return parent.withGuarded(holding: &state) { links in
        links.children[run.serial] = run
        parent.flags.setBits(RunFlag.hasChildren, ordering: .acquiringAndReleasing)
        return parent.isCancelled
      }
    }
    if run.isCancelled { cancelTask() }
    if cancelsChild { cancel(run, .parentCancelled) }
  }

  /// Records how to announce the run cancelled, unless it has finished; announces at once if
  /// the run was cancelled before this was recorded.
  func attach(_ run: ThunkRun, announceCancellation: @escaping @Sendable () -> Void) {
    withLinks(of: run) { links in
      let before = run.flags.setBits(RunFlag.linked, ordering: .acquiringAndReleasing)
      if before & RunFlag.finished == 0 { links.announceCancellation = announceCancellation }
    }
    if run.isCancelled, run.claimEnd() { announceCancellation() }
  }

  func resumeWhenFinished(_ run: ThunkRun, _ continuation: CheckedContinuation<Void, Never>) {
    let isFinished = withLinks(of: run) { links in
      let before = run.flags.setBits(RunFlag.linked, ordering: .acquiringAndReleasing)
      let isFinished = before & RunFlag.finished != 0
      if !isFinished { links.finishWaiters.append(continuation) }
      return isFinished
    }
    if isFinished { continuation.resume() }
  }

  func resumeWhenChildrenFinished(
    _ run: ThunkRun, _ continuation: CheckedContinuation<Void, Never>
  ) {
    let isDone = withLinks(of: run) { links in
      if !links.children.isEmpty { links.childrenWaiters.append(continuation) }
      return links.children.isEmpty
    }
    if isDone { continuation.resume() }
  }
}

extension ThunkTask {
  /// The task of `run`.
  init(_ task: Task<Value, any Error>, run: ThunkRun) {
    self.outcome = .task(task)
    self.run = run
  }

  /// A run that ended before `dispatch` returned: dropped by its policy, or a ``Thunk``'s, done.
  init(endedWithoutTask run: ThunkRun, dropped: Bool) {
    self.outcome = .ended(dropped: dropped)
    self.run = run
  }
}
