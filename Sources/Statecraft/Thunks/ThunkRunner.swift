/// One run of a thunk: its cancellation, its task and the thunks it dispatched.
final class ThunkRun: Sendable {
  private struct Links {
    var cancelTask: (@Sendable () -> Void)?
    /// Dispatches the run's `cancelled` lifecycle action, for an `AsyncThunk`.
    var announceCancellation: (@Sendable () -> Void)?
    var children: [ThunkRun] = []
    var childWaits: [@Sendable () async -> Void] = []
  }

  let id: ThunkID?
  let serial: UInt64
  private let cancelled = AtomicCell<Bool>(false)
  /// Set by whichever lifecycle action ends the run first: fulfilled, rejected or cancelled.
  private let ended = AtomicCell<Bool>(false)
  private let links = Locked(Links())

  init(id: ThunkID?, serial: UInt64) {
    self.id = id
    self.serial = serial
  }

  var isCancelled: Bool {
    cancelled.load(ordering: .acquiring)
  }

  /// Marks the run cancelled, cancels its task and its children.
  ///
  /// Idempotent.
  ///
  /// An `AsyncThunk`'s `cancelled` action is dispatched here, on the cancelling thread, before
  /// this returns: a run superseded by a new one with the same id is always announced cancelled
  /// before the new one's `pending`.
  func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let (cancelTask, announce, children) = links.withLock {
      ($0.cancelTask, $0.announceCancellation, $0.children)
    }
    for child in children { child.cancel() }
    if let announce, claimEnd() { announce() }
    cancelTask?()
  }

  /// Whether the caller is the first to end the run's lifecycle; each run ends once.
  func claimEnd() -> Bool {
    !ended.exchange(true, ordering: .acquiringAndReleasing)
  }

  /// Records how to announce the run cancelled.
  ///
  /// Announces at once if the run was cancelled before this was recorded.
  func attach(announceCancellation: @escaping @Sendable () -> Void) {
    links.withLock { $0.announceCancellation = announceCancellation }
    if isCancelled, claimEnd() { announceCancellation() }
  }

  /// Records how to cancel the run's task; cancels it at once if the run already is.
  func attach(cancelTask: @escaping @Sendable () -> Void) {
    links.withLock { $0.cancelTask = cancelTask }
    if isCancelled { cancelTask() }
  }

  /// Records a thunk this run dispatched, so that waiting for the run waits for it and
  /// cancelling the run cancels it.
  func adopt(_ child: ThunkRun, wait: @escaping @Sendable () async -> Void) {
    links.withLock {
      $0.children.append(child)
      $0.childWaits.append(wait)
    }
    if isCancelled { child.cancel() }
  }

  /// Waits for every thunk this run dispatched, including those they dispatch meanwhile.
  func waitForChildren() async {
    var waited = 0
    while true {
      let waits = links.withLock { Array($0.childWaits.dropFirst(waited)) }
      guard !waits.isEmpty else { return }
      for wait in waits { await wait() }
      waited += waits.count
    }
  }
}

/// The thunks a store runs: their identifiers, the environment they read, and where their
/// errors go.
@usableFromInline
final class ThunkRunner: Sendable {
  private let nextSerial = AtomicCell<UInt64>(0)
  private let running = Locked<[UInt64: ThunkRun]>([:])
  let environmentStorage = Locked(ThunkEnvironment())
  let errorHandler = Locked<(@Sendable (any Error) -> Void)?>(ThunkRunner.defaultErrorHandler)

  @usableFromInline
  init() {}

  /// Cancels every running thunk; called when the store is released.
  func cancelAll() {
    for run in running.withLock({ Array($0.values) }) { run.cancel() }
  }

  var environment: ThunkEnvironment {
    environmentStorage.withLock { $0 }
  }

  /// Registers a new run; with `cancelsInFlight`, first cancels the running ones with `id`.
  func begin(id: ThunkID?, cancelsInFlight: Bool) -> ThunkRun {
    let run = ThunkRun(id: id, serial: nextSerial.add(1, ordering: .relaxed).newValue)
    let cancelled: [ThunkRun] = running.withLock { running in
      defer { running[run.serial] = run }
      guard cancelsInFlight, let id else { return [] }
      return running.values.filter { $0.id == id }
    }
    for old in cancelled { old.cancel() }
    return run
  }

  func end(_ run: ThunkRun) {
    _ = running.withLock { $0.removeValue(forKey: run.serial) }
  }

  func cancel(id: ThunkID) {
    let runs = running.withLock { $0.values.filter { $0.id == id } }
    for run in runs { run.cancel() }
  }

  func report(_ error: any Error) {
    guard !(error is CancellationError) else { return }
    errorHandler.withLock { $0 }?(error)
  }

  static let defaultErrorHandler: @Sendable (any Error) -> Void = { error in
    #if DEBUG
      print("Statecraft: a thunk threw \(error). Set Store.thunkErrorHandler to handle it.")
    #endif
  }
}

/// Where a thunk runs: in a store, or, run by the thunk middleware in a chain built by hand,
/// with the `dispatch` and `getState` that middleware was handed.
enum ThunkTarget<State: Sendable>: Sendable {
  case store(StoreCore<State>)
  case handed(dispatch: DispatchFunction, getState: GetState<State>)

  func checkNotReducing(_ call: String) {
    if case .store(let core) = self { core.reduction.checkNotReducing(.method(call)) }
  }

  /// Dispatches the actions the runner itself sends, such as lifecycle actions.
  var dispatch: DispatchFunction {
    switch self {
    case .store(let core): { [weak core] action in core?.dispatch(action) }
    case .handed(let dispatch, _): dispatch
    }
  }
}

/// A thunk the store can start whatever its static type: lets an action dispatched by a
/// thunk or a middleware be recognised as a thunk.
protocol StartableThunk<State>: StartedByTheStore {
  associatedtype State: Sendable
  func start(on target: ThunkTarget<State>, runner: ThunkRunner, parent: ThunkRun?)
}

extension Thunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start(on target: ThunkTarget<State>, runner: ThunkRunner, parent: ThunkRun?) {
    _ = runner.run(self, on: target, parent: parent)
  }
}

extension AsyncThunk: StartableThunk {
  @usableFromInline static var stateType: Any.Type { State.self }

  func start(on target: ThunkTarget<State>, runner: ThunkRunner, parent: ThunkRun?) {
    _ = runner.run(self, on: target, parent: parent)
  }
}

extension ThunkRunner {
  /// The engine's hook for the dispatch a middleware receives: starts thunks of the store's
  /// state instead of reducing them.
  @usableFromInline
  func route<State: Sendable>() -> StoreCore<State>.Route {
    { [weak self] action, core in
      guard let self, let thunk = action as? any StartableThunk<State> else { return false }
      thunk.start(on: .store(core), runner: self, parent: nil)
      return true
    }
  }

  /// Dispatches `action` for a thunk's run, starting it as a child if it is a thunk.
  func dispatch<State>(_ action: any Action, on core: StoreCore<State>, parent: ThunkRun) {
    if let thunk = action as? any StartableThunk<State> {
      thunk.start(on: .store(core), runner: self, parent: parent)
    } else {
      core.dispatch(action)
    }
  }

  func run<State>(_ thunk: Thunk<State>, on target: ThunkTarget<State>, parent: ThunkRun?)
    -> ThunkTask<Void>
  {
    target.checkNotReducing("dispatch(Thunk)")
    let run = begin(id: thunk.id, cancelsInFlight: thunk.cancelsInFlight)
    let context = ThunkContext(run: run, runner: self, target: target)
    let task: Task<Void, any Error>
    switch thunk.body {
    case .immediate(let body):
      body(context.dispatch, context.getState)
      task = Task { [self] in
        await run.waitForChildren()
        end(run)
      }
    case .async(let body):
      task = Task.detached { [self] in
        defer { end(run) }
        do {
          try await body(context)
          await run.waitForChildren()
        } catch {
          await run.waitForChildren()
          report(error)
          throw error
        }
      }
    }
    return finish(ThunkTask(task: task, run: run), parent: parent)
  }

  func run<State, Value>(
    _ thunk: AsyncThunk<State, Value>, on target: ThunkTarget<State>, parent: ThunkRun?
  ) -> ThunkTask<Value> {
    target.checkNotReducing("dispatch(AsyncThunk)")
    let run = begin(id: thunk.id, cancelsInFlight: thunk.cancelsInFlight)
    let context = ThunkContext(run: run, runner: self, target: target)
    let name = thunk.name
    let body = thunk.body
    let dispatch = target.dispatch
    let lifecycle: @Sendable (ThunkLifecycle<Value>.Phase) -> Void = { phase in
      dispatch(ThunkLifecycle(name: name, requestID: run.serial, phase: phase))
    }
    lifecycle(.pending)
    run.attach(announceCancellation: { lifecycle(.cancelled) })
    let task = Task.detached { [self] in
      defer { end(run) }
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
    return finish(ThunkTask(task: task, run: run), parent: parent)
  }

  private func finish<Value>(_ task: ThunkTask<Value>, parent: ThunkRun?) -> ThunkTask<Value> {
    let inner = task.task
    task.run.attach(cancelTask: { inner.cancel() })
    parent?.adopt(task.run) { _ = try? await inner.value }
    return task
  }
}
