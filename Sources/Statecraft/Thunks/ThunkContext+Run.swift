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
