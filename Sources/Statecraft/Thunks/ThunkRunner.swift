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
    links = Locked(Links(id: id, serial: serial))
  }

  /// Runs `body` on the links, under the run's lock.
  private func withLinks<Result>(_ body: (inout Links) -> Result) -> Result {
    links.withLock(body)
  }

  var isCancelled: Bool {
    withLinks { $0.isCancelled }
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

  /// Waits until every thunk this run dispatched has finished, including those they dispatch
  /// meanwhile.
  func waitForChildren() async {
    await withCheckedContinuation { continuation in
      let isDone = withLinks { links in
        if !links.children.isEmpty { links.childrenWaiters.append(continuation) }
        return links.children.isEmpty
      }
      if isDone { continuation.resume() }
    }
  }
}

/// The thunks a store runs: their identifiers, the environment they read, and where their
/// errors go.
@usableFromInline
final class ThunkRunner: Sendable {
  private struct State: Sendable {
    var nextSerial: UInt64 = 0
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
        state.nextSerial += 1
        let run = ThunkRun(id: id, serial: state.nextSerial)
        state.running[run.serial] = run
        return run
      }
      return Admission(run: run, wait: nil, isDropped: false)
    }
    let clock = environment[ThunkClockKey.self]
    let now = clock.now
    let (run, superseded, previous, isDropped) = state.withLock {
      runs -> (run: ThunkRun, superseded: [ThunkRun], previous: ThunkRun?, isDropped: Bool) in
      runs.nextSerial += 1
      let run = ThunkRun(id: id, serial: runs.nextSerial)
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

extension ThunkContext {
  /// The context of `run`, in `target`.
  ///
  /// Its `dispatch` is built once per run, not on each use.
  init(run: ThunkRun, runner: ThunkRunner, target: ThunkTarget<State>) {
    self.run = run
    self.runner = runner
    switch target {
    case .store(.root(let core)):
      self.core = core
      scope = nil
      dispatch = { [weak core] action in
        guard !run.isCancelled, let core else { return }
        runner.dispatch(action, on: .root(core), parent: run)
      }
      handedGetState = nil
    case .store(.scope(let scope)):
      core = nil
      self.scope = scope
      dispatch = { [weak scope] action in
        guard !run.isCancelled, let scope else { return }
        runner.dispatch(action, on: .scope(scope), parent: run)
      }
      handedGetState = nil
    case .handed(let dispatch, let getState):
      core = nil
      scope = nil
      self.dispatch = { action in
        guard !run.isCancelled else { return }
        dispatch(action)
      }
      handedGetState = getState
    }
  }

  /// The function ``getState`` returns: made on each read, so that a run that never reads the
  /// state allocates none.
  func makeGetState() -> GetState<State> {
    if let handedGetState { return handedGetState }
    if let scope { return { [weak scope] in scope?.snapshot?.state } }
    return { [weak core] in core?.stateFromGenericCode }
  }
}

extension ThunkTask {
  /// The task of `run`.
  init(_ task: Task<Value, any Error>, run: ThunkRun) {
    self.task = task
    self.run = run
  }
}

/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(Engine<State>)
  case handed(dispatch: DispatchFunction, getState: GetState<State>)

  func checkNotReducing(_ call: @autoclosure () -> String) {
    if case .store(let engine) = self { engine.checkNotReducing(.method(call())) }
  }

  /// This target as one of `Other`, which ``startable(_:for:)`` checked is `State`.
  func `as`<Other>(_: Other.Type) -> ThunkTarget<Other> {
    guard let target = self as? ThunkTarget<Other> else {
      preconditionFailure("a thunk of \(Other.self) started on a target of \(State.self)")
    }
    return target
  }

  /// Dispatches the actions the runner itself sends, such as lifecycle actions.
  var dispatch: DispatchFunction {
    switch self {
    case .store(.root(let core)): { [weak core] action in core?.dispatchFromGenericCode(action) }
    case .store(.scope(let scope)): { [weak scope] action in scope?.dispatch(action) }
    case .handed(let dispatch, _): dispatch
    }
  }
}

/// A thunk the store can start whatever its static type: lets an action dispatched by a
/// thunk or a middleware be recognised as a thunk.
///
/// Not a protocol with a primary associated type: a cast to `any StartableThunk<State>` is
/// resolved by demangling type names at run time, on every action a thunk dispatches. A plain
/// protocol's conformance is cached; the state is then compared as a metatype
/// (``startable(_:for:)``).
protocol StartableThunk: StartedByTheStore {
  /// Starts the thunk on `target`, whose state is the thunk's (``startable(_:for:)`` checked).
  func start<Target: Sendable>(
    on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?)
}

/// The thunk in `action` if it is one for stores of `State`.
func startable<State>(_ action: any Action, for _: State.Type) -> (any StartableThunk)? {
  // The identity read from the existential (see `typeIdentifier(of:)`); for a class it may be
  // a superclass's, which is as good here: thunks are structs.
  let type = typeIdentifier(of: action)
  if nonThunkTypes.withLock({ $0.contains(type) }) { return nil }
  guard let thunk = action as? any StartableThunk else {
    nonThunkTypes.withLock { _ = $0.insert(type) }
    return nil
  }
  return Swift.type(of: thunk).stateType == State.self ? thunk : nil
}

/// The action types found not to be thunks.
///
/// A thunk's every dispatch asks whether its action is a thunk; the cast looks the conformance
/// up in the runtime, and this set answers for the types already seen far sooner. It holds at
/// most one entry per action type of the program.
private let nonThunkTypes = Locked<Set<ObjectIdentifier>>([])

extension Thunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start<Target>(on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?) {
    let target = target.as(State.self)
    if case .handed = target {
      runner.runHanded(self, on: target)
    } else {
      _ = runner.run(self, on: target, parent: parent)
    }
  }
}

extension AsyncThunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start<Target>(on target: ThunkTarget<Target>, runner: ThunkRunner, parent: ThunkRun?) {
    _ = runner.run(self, on: target.as(State.self), parent: parent)
  }
}

extension ThunkRunner {
  /// The engine's hook for the dispatch a middleware receives: starts thunks of the store's
  /// state instead of reducing them.
  @usableFromInline
  func route<State: Sendable>() -> StoreCore<State>.Route {
    { [weak self] action, core in
      guard let self, let thunk = startable(action, for: State.self) else { return false }
      thunk.start(on: .store(.root(core)), runner: self, parent: nil)
      return true
    }
  }

  /// Dispatches `action` for a thunk's run, starting it as a child if it is a thunk.
  func dispatch<State>(_ action: any Action, on engine: Engine<State>, parent: ThunkRun) {
    if let thunk = startable(action, for: State.self) {
      thunk.start(on: .store(engine), runner: self, parent: parent)
    } else {
      engine.dispatchFromGenericCode(action)
    }
  }

  func run<State>(_ thunk: Thunk<State>, on target: ThunkTarget<State>, parent: ThunkRun?)
    -> ThunkTask<Void>
  {
    target.checkNotReducing("dispatch(\(thunk.misuseName))")
    let admission = admit(id: thunk.id, policy: thunk.policy)
    return run(thunk, admitted: admission, on: target, parent: parent)
  }

  /// Runs `thunk` in a chain built by hand, with the functions the middleware was handed.
  ///
  /// A body that does not `await` and may run at once runs and ends on this thread, and starts
  /// no task, as in ReSwift-Thunk: such a run has no children to wait for, because its `dispatch`
  /// is the handed one, which never starts a thunk as its child. A task would end it a moment
  /// later on another thread, and would start the concurrency runtime's threads in a program or
  /// test that may use none. Other thunks run as in a store, in a task.
  func runHanded<State>(_ thunk: Thunk<State>, on target: ThunkTarget<State>) {
    let admission = admit(id: thunk.id, policy: thunk.policy)
    guard case .immediate(let body) = thunk.body, admission.wait == nil else {
      _ = run(thunk, admitted: admission, on: target, parent: nil)
      return
    }
    let run = admission.run
    if admission.isDropped {
      run.markFinished()
      return
    }
    let context = ThunkContext(run: run, runner: self, target: target)
    body(context.dispatch, context.makeGetState())
    end(run)
  }

  private func run<State>(
    _ thunk: Thunk<State>, admitted admission: Admission, on target: ThunkTarget<State>,
    parent: ThunkRun?
  ) -> ThunkTask<Void> {
    let run = admission.run
    guard !admission.isDropped else { return dropped(run, parent: parent) }
    let context = ThunkContext(run: run, runner: self, target: target)
    let task: Task<Void, any Error>
    switch thunk.body {
    case .immediate(let body) where admission.wait == nil:
      body(context.dispatch, context.makeGetState())
      task = startTask(on: target) { [self] in
        await run.waitForChildren()
        end(run)
      }
    case .immediate(let body):
      // Its turn comes later (queue, debounce): the body runs in the task.
      task = startTask(on: target) { [self] in
        defer { end(run) }
        try await admission.wait?()
        try context.checkCancellation()
        body(context.dispatch, context.makeGetState())
        await run.waitForChildren()
      }
    case .async(let body):
      task = startTask(on: target) { [self] in
        defer { end(run) }
        do {
          if let wait = admission.wait {
            try await wait()
            try context.checkCancellation()
          }
          try await body(context)
          await run.waitForChildren()
        } catch {
          await run.waitForChildren()
          report(error)
          throw error
        }
      }
    }
    return finish(ThunkTask(task, run: run), parent: parent)
  }

  func run<State, Value>(
    _ thunk: AsyncThunk<State, Value>, on target: ThunkTarget<State>, parent: ThunkRun?
  ) -> ThunkTask<Value> {
    target.checkNotReducing("dispatch(\(thunk.misuseName))")
    let admission = admit(id: thunk.id, policy: thunk.policy)
    let run = admission.run
    guard !admission.isDropped else { return dropped(run, parent: parent) }
    let context = ThunkContext(run: run, runner: self, target: target)
    let name = thunk.name
    let body = thunk.body
    let dispatch = target.dispatch
    // The serial, not the run: the run keeps this closure until it finishes.
    let serial = run.serial
    let lifecycle: @Sendable (ThunkLifecycle<Value>.Phase) -> Void = { phase in
      dispatch(ThunkLifecycle(name: name, requestID: serial, phase: phase))
    }
    // Without a wait, `pending` is reduced before `dispatch` returns; after one (queue,
    // debounce), only once the run's turn has come: a run cancelled while waiting dispatches
    // nothing at all. (Written out twice: a shared closure would be one more allocation a run.)
    let wait = admission.wait
    if wait == nil {
      lifecycle(.pending)
      run.attach(announceCancellation: { lifecycle(.cancelled) })
    }
    // Detached, never started here: `dispatch` returns with `pending` reduced and the body not
    // yet run, which reducers and tests of lifecycle actions rely on.
    let task = Task.detached { [self] in
      defer { end(run) }
      if let wait {
        do {
          try await wait()
          try context.checkCancellation()
        } catch {
          _ = run.claimEnd()
          throw error
        }
        lifecycle(.pending)
        run.attach(announceCancellation: { lifecycle(.cancelled) })
      }
      do {
        let value = try await body(context)
        await run.waitForChildren()
        try context.checkCancellation()
        if run.claimEnd() { lifecycle(.fulfilled(value)) }
        return value
      } catch {
        await run.waitForChildren()
        if run.isCancelled || error is CancellationError {
          if run.claimEnd() { lifecycle(.cancelled) }
        } else {
          if run.claimEnd() { lifecycle(.rejected(error)) }
          report(error)
        }
        throw error
      }
    }
    return finish(ThunkTask(task, run: run), parent: parent)
  }

  /// The task of a run its policy dropped: it throws `CancellationError` and dispatched nothing.
  private func dropped<Value>(_ run: ThunkRun, parent: ThunkRun?) -> ThunkTask<Value> {
    run.markFinished()
    return finish(ThunkTask(Task { throw CancellationError() }, run: run), parent: parent)
  }

  private func finish<Value>(_ task: ThunkTask<Value>, parent: ThunkRun?) -> ThunkTask<Value> {
    let inner = task.task
    task.run.attach(cancelTask: { inner.cancel() })
    parent?.adopt(task.run)
    return task
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
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *), target.startsInline {
      return Task.immediate(operation: operation)
    }
    return Task.detached(operation: operation)
  }
}

extension ThunkTarget {
  /// Whether a run's task may start on this thread: see `ThunkRunner.startTask(on:_:)`.
  var startsInline: Bool {
    guard case .store(let engine) = self else { return false }
    return !MainQueue.isCurrent && !engine.isTurnHeld
  }
}
