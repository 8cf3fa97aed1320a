import StatecraftPrimitives

/// One run of a thunk: its cancellation, its task and the thunks it dispatched.
///
/// Copies share the run: its identity and its links are one allocation, the links behind its
/// lock; a copy retains that one reference.
struct ThunkRun: Sendable {
  private let links: Locked<Links>

  /// The identifier the thunk was created with; set once, read under the lock.
  var id: ThunkID? { links.withLock { $0.id } }
  /// The run's number in its runner; set once, read under the lock.
  var serial: UInt64 { links.withLock { $0.serial } }

  /// What a run links to while it runs: released when it finishes (`markFinished`), so that a
  /// finished run holds no task, closure, parent or child.
  struct Links: Sendable {
    let id: ThunkID?
    let serial: UInt64
    var isCancelled = false
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
    /// Set by whichever lifecycle action ends the run first: fulfilled, rejected or cancelled.
    var hasEnded = false
    /// Whether the run's task has ended, and who waits for that (the next run of a queue).
    var isFinished = false
    var finishWaiters: [CheckedContinuation<Void, Never>] = []
  }

  init(id: ThunkID?, serial: UInt64) {
    links = Locked { Links(id: id, serial: serial) }
  }

  /// A run without an identifier: its `nil` made here, not copied from an argument through the
  /// optional identifier's out-of-line copy functions.
  init(serial: UInt64) {
    links = Locked { Links(id: nil, serial: serial) }
  }

  /// Runs `body` on the links, under the run's lock.
  private func withLinks<Result>(_ body: (inout Links) -> Result) -> Result {
    links.withLock(body)
  }

  var isCancelled: Bool {
    withLinks { $0.isCancelled }
  }

  /// Throws `CancellationError` if the run has been cancelled; for the runner, whose code would
  /// look `ThunkContext<State>` up at run time to ask the context.
  func checkCancellation() throws {
    if isCancelled { throw CancellationError() }
  }

  var cancellationReason: ThunkCancellationReason? {
    withLinks { $0.cancellationReason }
  }

  /// Marks the run cancelled, cancels its task and its children.
  ///
  /// Idempotent.
  ///
  /// An `AsyncThunk`'s `cancelled` action is dispatched here, on the cancelling thread, before
  /// this returns: a run superseded by a new one with the same id is always announced cancelled
  /// before the new one's `pending`.
  func cancel(_ reason: ThunkCancellationReason) {
    let taken = withLinks {
      links -> (
        cancelTask: (@Sendable () -> Void)?, announce: (@Sendable () -> Void)?, children: [ThunkRun]
      )? in
      defer { links.isCancelled = true }
      if links.isCancelled { return nil }
      links.cancellationReason = reason
      return (links.cancelTask, links.announceCancellation, Array(links.children.values))
    }
    guard let (cancelTask, announce, children) = taken else { return }
    for child in children { child.cancel(.parentCancelled) }
    if let announce, claimEnd() { announce() }
    cancelTask?()
  }

  /// Records that the run's task has ended: resumes those waiting for it, leaves its parent and
  /// drops every link, which breaks the cycles a running run is part of (its task and its
  /// lifecycle closure hold it, it holds them).
  func markFinished() {
    let (waiters, parent) = withLinks { links in
      links.isFinished = true
      let taken = (links.finishWaiters, links.parent)
      links.finishWaiters = []
      links.parent = nil
      links.cancelTask = nil
      links.announceCancellation = nil
      return taken
    }
    parent?.removeChild(serial)
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the run's task has ended.
  func waitUntilFinished() async {
    await withCheckedContinuation { continuation in
      let isFinished = withLinks { links in
        if !links.isFinished { links.finishWaiters.append(continuation) }
        return links.isFinished
      }
      if isFinished { continuation.resume() }
    }
  }

  /// Whether the caller is the first to end the run's lifecycle; each run ends once.
  func claimEnd() -> Bool {
    withLinks { links in
      defer { links.hasEnded = true }
      return !links.hasEnded
    }
  }

  /// Records how to announce the run cancelled, unless it has finished.
  ///
  /// Announces at once if the run was cancelled before this was recorded.
  func attach(announceCancellation: @escaping @Sendable () -> Void) {
    withLinks { links in
      if !links.isFinished { links.announceCancellation = announceCancellation }
    }
    if isCancelled, claimEnd() { announceCancellation() }
  }

  /// Records how to cancel the run's task, unless it has finished; cancels it at once if the run
  /// already is cancelled.
  func attach(cancelTask: @escaping @Sendable () -> Void) {
    withLinks { links in
      if !links.isFinished { links.cancelTask = cancelTask }
    }
    if isCancelled { cancelTask() }
  }

  /// Records a thunk this run dispatched until it finishes, so that waiting for the run waits for
  /// it and cancelling the run cancels it.
  func adopt(_ child: ThunkRun) {
    let isCancelled = withLinks { links in
      links.children[child.serial] = child
      return links.isCancelled
    }
    // The child either finds this parent when it finishes, or has finished already: exactly one
    // of the two removes it.
    let hasFinished = child.withLinks { links in
      if !links.isFinished { links.parent = self }
      return links.isFinished
    }
    if hasFinished {
      removeChild(child.serial)
    } else if isCancelled {
      child.cancel(.parentCancelled)
    }
  }

  private func removeChild(_ serial: UInt64) {
    let waiters = withLinks { links -> [CheckedContinuation<Void, Never>] in
      links.children[serial] = nil
      guard links.children.isEmpty else { return [] }
      defer { links.childrenWaiters = [] }
      return links.childrenWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether a thunk this run dispatched has not finished.
  var hasChildren: Bool {
    withLinks { !$0.children.isEmpty }
  }

  /// Waits until every thunk this run dispatched has finished, including those they dispatch
  /// meanwhile.
  func waitForChildren() async {
    // Without children, no suspension: it would send the task back to its executor, off the
    // thread a `Task.immediate` run started on.
    guard hasChildren else { return }
    await withCheckedContinuation { continuation in
      let isDone = withLinks { links in
        if !links.children.isEmpty { links.childrenWaiters.append(continuation) }
        return links.children.isEmpty
      }
      if isDone { continuation.resume() }
    }
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
