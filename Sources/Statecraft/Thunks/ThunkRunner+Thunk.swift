/// Running a ``Thunk``: its body inline or in a task, in a store or in a chain built by hand.
extension ThunkRunner {
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
}
