extension ThunkContext {
  /// The context of `run`, in `target`.
  ///
  /// Its `dispatch` is built once per run, not on each use.
  init(run: ThunkRun, runner: ThunkRunner, target: ThunkTarget<State>) {
    self.run = run
    self.runner = runner
    switch target {
    case .store(let engine):
      dispatch = runDispatch(to: engine, run: run, runner: runner)
      switch engine {
      case .root(let core):
        self.core = core
        scope = nil
      case .scope(let scope):
        core = nil
        self.scope = scope
      }
      handedGetState = nil
    case .handed(let dispatch, let getState):
      self.dispatch = runDispatch(to: dispatch, run: run)
      core = nil
      scope = nil
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
    self.outcome = .task(task)
    self.run = run
  }

  /// A run that ended before `dispatch` returned: dropped by its policy, or a ``Thunk``'s, done.
  init(endedWithoutTask run: ThunkRun, dropped: Bool) {
    self.outcome = .ended(dropped: dropped)
    self.run = run
  }
}
