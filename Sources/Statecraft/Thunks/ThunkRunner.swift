import StatecraftPrimitives

/// The thunks a store runs: their identifiers, the environment they read, and where their
/// errors go.
@usableFromInline
final class ThunkRunner: Sendable {
  private struct State: Sendable {
    /// The runs that cancelling by identifier or releasing the store reaches.
    var running: [UInt64: ThunkRun] = [:]
    /// When a throttled id last started a run.
    var lastStarts: [ThunkID: Interval] = [:]
    var environment = ThunkEnvironment()
    var errorHandler: (@Sendable (any Error) -> Void)? = ThunkRunner.defaultErrorHandler
  }

  private let state = Locked(State())

  @usableFromInline
  init() {}

  /// Cancels every running thunk; called when the store is released.
  func cancelAll() {
    for run in state.withLock({ Array($0.running.values) }) { run.cancel(.storeReleased) }
  }

  var environment: ThunkEnvironment {
    get { state.withLock { $0.environment } }
    set { state.withLock { $0.environment = newValue } }
  }

  var errorHandler: (@Sendable (any Error) -> Void)? {
    get { state.withLock { $0.errorHandler } }
    set { state.withLock { $0.errorHandler = newValue } }
  }

  /// How a new run starts under its policy.
  struct Admission {
    let run: ThunkRun
    /// Awaited before the body runs (queue, debounce); `nil` to run at once.
    let wait: (@Sendable () async throws -> Void)?
    /// Whether the policy dropped the run: it runs nothing and dispatches nothing.
    let isDropped: Bool
  }

  /// Registers a new run under `policy`: cancels the runs it supersedes, or drops it, or makes
  /// it wait for its turn.
  func admit(id: ThunkID?, policy: ThunkPolicy) -> Admission {
    guard let id, policy != .concurrent else {
      let run = state.withLock { state in
        let run = ThunkRun(id: id, serial: nextSerial())
        state.running[run.serial] = run
        return run
      }
      return Admission(run: run, wait: nil, isDropped: false)
    }
    let clock = environment[ThunkClockKey.self]
    let now = clock.now
    let (run, superseded, previous, isDropped) = state.withLock {
      runs -> (run: ThunkRun, superseded: [ThunkRun], previous: ThunkRun?, isDropped: Bool) in
      let run = ThunkRun(id: id, serial: nextSerial())
      let same = runs.running.values.filter { $0.id == id }
      var result: (run: ThunkRun, superseded: [ThunkRun], previous: ThunkRun?, isDropped: Bool) =
        (run, [], nil, false)
      switch policy {
      case .concurrent: break
      case .cancelPrevious, .debounce: result.superseded = same
      case .dropWhileRunning: result.isDropped = !same.isEmpty
      case .queue: result.previous = same.max { $0.serial < $1.serial }
      case .throttle(let interval):
        if let last = runs.lastStarts[id],
          now.nanoseconds &- last.nanoseconds < interval.nanoseconds
        {
          result.isDropped = true
        } else {
          runs.lastStarts[id] = now
        }
      }
      if !result.isDropped { runs.running[run.serial] = run }
      return result
    }
    for old in superseded { old.cancel(.superseded(by: policy)) }
    if isDropped {
      run.cancel(.dropped(by: policy))
      return Admission(run: run, wait: nil, isDropped: true)
    }
    switch policy {
    case .queue:
      guard let previous else { break }
      return Admission(run: run, wait: { await previous.waitUntilFinished() }, isDropped: false)
    case .debounce(let interval):
      return Admission(run: run, wait: { try await clock.sleep(for: interval) }, isDropped: false)
    default: break
    }
    return Admission(run: run, wait: nil, isDropped: false)
  }

  /// A number for a new run.
  ///
  /// Taken under the lock for a run with an identifier, so that the numbers of the runs of one
  /// identifier follow the order they were admitted in (`.queue`).
  func nextSerial() -> UInt64 {
    runSerials.add(1, ordering: .relaxed).newValue
  }

  /// Registers a run that was not admitted: one without an identifier that ran inline and
  /// outlives the call, because it has children.
  func register(_ run: ThunkRun) {
    state.withLock { $0.running[run.serial] = run }
  }

  func end(_ run: ThunkRun) {
    _ = state.withLock { $0.running.removeValue(forKey: run.serial) }
    run.markFinished()
  }

  func cancel(id: ThunkID) {
    let matching = state.withLock { $0.running.values.filter { $0.id == id } }
    for run in matching { run.cancel(.cancelledByID(id)) }
  }

  func report(_ error: any Error) {
    guard !(error is CancellationError) else { return }
    errorHandler?(error)
  }

  static let defaultErrorHandler: @Sendable (any Error) -> Void = { error in
    #if DEBUG
      print("Statecraft: a thunk threw \(error). Set Store.thunkErrorHandler to handle it.")
    #endif
  }
}

extension ThunkRunner {
  /// The task of a run its policy dropped: it throws `CancellationError` and dispatched nothing.
  ///
  /// The run has finished before its parent, if any, could adopt it.
  func dropped<Value>(_ run: ThunkRun) -> ThunkTask<Value> {
    run.markFinished()
    return ThunkTask(endedWithoutTask: run, dropped: true)
  }

  /// The task of `run`, linked to it so that cancelling the run cancels the task, and the run
  /// linked to its parent.
  func finish<Value>(_ task: Task<Value, any Error>, run: ThunkRun, parent: ThunkRun?)
    -> ThunkTask<Value>
  {
    run.attach(cancelTask: { task.cancel() })
    parent?.adopt(run)
    return ThunkTask(task, run: run)
  }
}

extension ThunkRunner {
  /// Starts a run's task.
  ///
  /// Off the main queue and outside the middleware, the task starts on this thread and runs
  /// here until its first suspension (`Task.immediate`), which spares a thunk's round trip a
  /// switch of threads (Benchmarks/README.md, row h). On the main queue the task is detached,
  /// so that a thunk's synchronous start never holds up the UI; inside the middleware
  /// (the process lock held) too, so that the body's dispatches are not queued behind the
  /// action being processed. Before macOS 26 and its siblings, always detached.
  func startTask<State, Success: Sendable>(
    on target: ThunkTarget<State>,
    _ operation: sending @escaping () async throws -> Success
  ) -> Task<Success, any Error> {
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *), startsInline(in: target) {
      return Task.immediate(operation: operation)
    }
    return Task.detached(operation: operation)
  }
}

/// The last number a thunk run took, in any store: one counter for the process, so that a store
/// keeps no atomic word of its own for its runs.
private let runSerials = AtomicCell<UInt64>(0)
