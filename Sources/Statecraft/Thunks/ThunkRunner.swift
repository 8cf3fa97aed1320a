import StatecraftPrimitives

/// The thunks a store runs: their identifiers, the environment they read, and where their
/// errors go.
@usableFromInline
final class ThunkRunner: Sendable {
  /// What the runner's lock guards: its own state, and the links of each of its runs.
  struct State: Sendable {
    /// The newest registered run, the head of the list that cancelling by identifier and
    /// releasing the store reach (`ThunkRunLinks.older`).
    var newest: ThunkRun?
    /// When a throttled id last started a run.
    var lastStarts: [ThunkID: Interval] = [:]
    var environment = ThunkEnvironment()
    var errorHandler: (@Sendable (any Error) -> Void)? = ThunkRunner.defaultErrorHandler
    /// Where this runner's thunks run, once one has run (`host(for:)`).
    var host: (any AnyObject & Sendable)?
  }

  // The address of `state.host`, which keeps it: read without the lock on each run. Reached
  // only through `_hostAddress`, atomically: never read or written here after `init`. In the
  // runner itself, so that a store keeps one allocation of atomic words, its engine's.
  nonisolated(unsafe) private var _hostAddressStorage: UInt64
  let state = Locked(State())

  @usableFromInline
  init() {
    _hostAddressStorage = 0x5CA1_AB1E
    assert(
      _hostAddress.load(ordering: .relaxed) == 0x5CA1_AB1E,
      "the host's address is the first stored property")
    _hostAddressStorage = 0
  }

  @inlinable
  var _hostAddress: AtomicWord<UInt> { AtomicWord(firstStoredPropertyOf: self) }

  /// Cancels every running thunk; called when the store is released.
  func cancelAll() {
    let runs = state.withLock { state in
      var runs: [ThunkRun] = []
      forEachRegistered(in: &state) { runs.append($0) }
      return runs
    }
    for run in runs { run.cancel(.storeReleased) }
  }

  var environment: ThunkEnvironment {
    get { state.withLock { $0.environment } }
    set { state.withLock { $0.environment = newValue } }
  }

  var errorHandler: (@Sendable (any Error) -> Void)? {
    get { state.withLock { $0.errorHandler } }
    set { state.withLock { $0.errorHandler = newValue } }
  }

  /// Where the thunks of this runner run: the host of its store, or of the chain it was made
  /// for; made by the first run and kept.
  ///
  /// A runner serves one target: a store's engine, or the `dispatch` and `getState` a thunk
  /// middleware was handed. A root store's host comes through the core's specialized
  /// `_thunkHost`: here, in code not specialized for the app's `State`, naming
  /// `ThunkHost<State>` looks its type up at run time.
  func host<State>(for target: ThunkTarget<State>) -> ThunkHost<State> {
    switch target {
    case .store(.root(let core)): core._specialized._thunkHost(core, self)
    case .store(.scope(let scope)):
      if let host = keptHost(as: ThunkHost<State>.self) {
        host
      } else {
        knownObject(keep(ThunkHost(scope: scope)), as: ThunkHost<State>.self)
      }
    case .handed(let host): host
    }
  }

  /// The kept host, if a run kept one.
  @inlinable
  func keptHost<State>(as _: ThunkHost<State>.Type) -> ThunkHost<State>? {
    let kept = _hostAddress.load(ordering: .acquiring)
    return kept == 0 ? nil : withObject(at: kept, as: ThunkHost<State>.self) { $0 }
  }

  /// Keeps `made` as the runner's host, unless another run kept one first; returns the kept one.
  @usableFromInline
  func keep(_ made: any AnyObject & Sendable) -> AnyObject {
    state.withLock { state in
      if let host = state.host { return host }
      state.host = made
      _hostAddress.store(address(of: made), ordering: .releasing)
      return made
    }
  }

  /// How a new run starts under its policy.
  struct Admission {
    let run: ThunkRun
    /// Awaited before the body runs (queue, debounce); `nil` to run at once.
    let wait: (@Sendable () async throws -> Void)?
    /// Whether the policy dropped the run: it runs nothing and dispatches nothing.
    let isDropped: Bool
  }

  /// Admits a new run under `policy`: cancels the runs it supersedes, or drops it, or makes it
  /// wait for its turn.
  ///
  /// A run with an identifier enters the runner's list here. One without has no policy to
  /// apply: it takes no lock here, and enters the list with its task, if it gets one (`attach`).
  func admit<State>(id: ThunkID?, policy: ThunkPolicy, in host: ThunkHost<State>) -> Admission {
    let dispatch = host.runDispatch
    guard let id else {
      // Entered in the list with its task (`attach`): nothing reaches it by identifier.
      let run = ThunkRun(id: nil, serial: nextSerial(), runner: self, dispatch: dispatch)
      return Admission(run: run, wait: nil, isDropped: false)
    }
    guard policy != .concurrent else {
      let run = ThunkRun(id: id, serial: nextSerial(), runner: self, dispatch: dispatch)
      state.withLock { state in link(run, in: &state) }
      return Admission(run: run, wait: nil, isDropped: false)
    }
    let clock = environment[ThunkClockKey.self]
    let now = clock.now
    let (run, superseded, previous, isDropped) = state.withLock {
      state -> (run: ThunkRun, superseded: [ThunkRun], previous: ThunkRun?, isDropped: Bool) in
      // The serial under the lock, so that the numbers of the runs of one identifier follow
      // the order they were admitted in (`.queue`).
      let run = ThunkRun(id: id, serial: nextSerial(), runner: self, dispatch: dispatch)
      var same: [ThunkRun] = []
      forEachRegistered(in: &state) { if $0.id == id { same.append($0) } }
      var result: (run: ThunkRun, superseded: [ThunkRun], previous: ThunkRun?, isDropped: Bool) =
        (run, [], nil, false)
      switch policy {
      case .concurrent: break
      case .cancelPrevious, .debounce: result.superseded = same
      case .dropWhileRunning: result.isDropped = !same.isEmpty
      case .queue: result.previous = same.max { $0.serial < $1.serial }
      case .throttle(let interval):
        if let last = state.lastStarts[id],
          now.nanoseconds &- last.nanoseconds < interval.nanoseconds
        {
          result.isDropped = true
        } else {
          state.lastStarts[id] = now
        }
      }
      if !result.isDropped { link(run, in: &state) }
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
  func nextSerial() -> UInt64 {
    runSerials.add(1, ordering: .relaxed).newValue
  }

  /// How many runs the list holds: those that cancelling by identifier or releasing the store
  /// would reach now.
  var registeredRunCount: Int {
    state.withLock { state in
      var count = 0
      forEachRegistered(in: &state) { _ in count += 1 }
      return count
    }
  }

  func cancel(id: ThunkID) {
    let matching = state.withLock { state in
      var matching: [ThunkRun] = []
      forEachRegistered(in: &state) { if $0.id == id { matching.append($0) } }
      return matching
    }
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
    finish(run)
    return ThunkTask(endedWithoutTask: run, dropped: true)
  }

  /// The task of `run`, linked to it so that cancelling the run cancels the task, and the run
  /// linked to its parent.
  func started<Value>(_ task: Task<Value, any Error>, run: ThunkRun, parent: ThunkRun?)
    -> ThunkTask<Value>
  {
    // A body that never suspended has finished its run inside `Task.immediate`: nothing is
    // left to cancel or to wait for, so nothing to link.
    if !run.isFinished { attach(run, cancelTask: { task.cancel() }, parent: parent) }
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
    _ operation: sending @escaping @isolated(any) () async throws -> Success
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
