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
    checkNotReducing(target, "dispatch(\(thunk.misuseName))")
    let host = host(for: target)
    // One switch on the body: in code not specialized for the app's state, each match looks
    // the body's type up at run time.
    switch thunk.body {
    case .immediate(let body):
      let admission = admit(id: thunk.id, policy: thunk.policy, in: host)
      guard !admission.isDropped else { return dropped(admission.run) }
      guard admission.wait != nil else {
        return runInline(body, run: admission.run, on: target, host: host, parent: parent)
      }
      // Its turn comes later (queue, debounce): the body runs in the task.
      return runInTask(admission, parent: parent, on: target, host: host) { context in
        body(context.dispatch, context.host.getState)
      }
    case .async(let body):
      let admission = admit(id: thunk.id, policy: thunk.policy, in: host)
      guard !admission.isDropped else { return dropped(admission.run) }
      return runInTask(admission, parent: parent, on: target, host: host, body)
    }
  }

  /// Runs `body` in a task, after the admission's wait.
  ///
  /// Apart from `run`, so that a body run inline does not look up the types a task's closure
  /// captures.
  private func runInTask<State>(
    _ admission: Admission, parent: ThunkRun?, on target: ThunkTarget<State>,
    host: ThunkHost<State>,
    _ body: @escaping @Sendable (ThunkContext<State>) async throws -> Void
  ) -> ThunkTask<Void> {
    let run = admission.run
    // Its turn first (queue, debounce): a closure more, on that path only, so that the task's
    // closure captures no wait.
    let afterItsTurn: @Sendable (ThunkContext<State>) async throws -> Void =
      if let wait = admission.wait {
        { context in
          try await wait()
          try context.checkCancellation()
          try await body(context)
        }
      } else {
        body
      }
    let task = startTask(on: target) {
      defer { run.runner.finish(run) }
      do {
        try await afterItsTurn(ThunkContext(run: run, host: host))
        await run.waitForChildren()
      } catch {
        await run.waitForChildren()
        run.runner.report(error)
        throw error
      }
    }
    return started(task, run: run, parent: parent)
  }

  /// Runs a body that does not `await`, here and now, and ends its run once it has no children.
  private func runInline<State>(
    _ body:
      @Sendable (
        _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
      ) -> Void,
    run: ThunkRun, on target: ThunkTarget<State>, host: ThunkHost<State>, parent: ThunkRun?
  ) -> ThunkTask<Void> {
    body(run.dispatchFunction, host.getState)
    // The body's dispatches ran before it returned: a thunk it dispatched has either ended or
    // is a child by now. A child a callback dispatches later, once the run has ended, is one
    // nobody waits for, as after a run that ended in its task.
    guard run.hasChildren else {
      finish(run)
      return ThunkTask(endedWithoutTask: run, dropped: false)
    }
    // Registered with its task, if it was not (`attach`): releasing the store then cancels it.
    let task = startTask(on: target) { [self] in
      await run.waitForChildren()
      finish(run)
    }
    return started(task, run: run, parent: parent)
  }
}
