/// Running a ``Thunk``: its body inline or in a task, in a store or in a chain built by hand.
extension ThunkRunner {
  /// Runs `thunk` on `target` under its policy.
  ///
  /// A body that does not `await` and may run at once runs on this thread before this returns,
  /// as in ReSwift-Thunk, and its run ends here too, with no task, unless that body dispatched
  /// thunks that still run (its children): then a task waits for them and ends the run. Outside
  /// a store, in a chain built by hand, the handed `dispatch` never starts a child, so such a
  /// run always ends here: a task would end it a moment later on another thread, and would start
  /// the concurrency runtime's threads in a program or test that may use none. Other bodies run
  /// in a task.
  func run<State>(_ thunk: Thunk<State>, on target: ThunkTarget<State>, parent: ThunkRun?)
    -> ThunkTask<Void>
  {
    target.checkNotReducing("dispatch(\(thunk.misuseName))")
    let admission = admit(id: thunk.id, policy: thunk.policy)
    let run = admission.run
    guard !admission.isDropped else { return dropped(run) }
    let task: Task<Void, any Error>
    // One switch on the body: in code not specialized for the app's state, each match looks
    // the body's type up at run time.
    switch thunk.body {
    case .immediate(let body) where admission.wait == nil:
      return runInline(body, run: run, on: target, parent: parent)
    case .immediate(let body):
      // Its turn comes later (queue, debounce): the body runs in the task.
      let context = ThunkContext(run: run, runner: self, target: target)
      task = startTask(on: target) { [self] in
        defer { end(run) }
        try await admission.wait?()
        try context.checkCancellation()
        body(context.dispatch, context.makeGetState())
        await run.waitForChildren()
      }
    case .async(let body):
      let context = ThunkContext(run: run, runner: self, target: target)
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
    return finish(task, run: run, parent: parent)
  }

  /// Runs a body that does not `await`, here and now, and ends its run once it has no children.
  private func runInline<State>(
    _ body:
      @Sendable (
        _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
      ) -> Void,
    run: ThunkRun, on target: ThunkTarget<State>, parent: ThunkRun?
  ) -> ThunkTask<Void> {
    body(target.dispatch(for: run, runner: self), target.getState)
    // The body's dispatches ran before it returned: a thunk it dispatched has either ended or
    // is a child by now. A child a callback dispatches later, once the run has ended, is one
    // nobody waits for, as after a run that ended in its task.
    guard run.hasChildren else {
      end(run)
      return ThunkTask(endedWithoutTask: run, dropped: false)
    }
    let task = startTask(on: target) { [self] in
      await run.waitForChildren()
      end(run)
    }
    return finish(task, run: run, parent: parent)
  }
}
