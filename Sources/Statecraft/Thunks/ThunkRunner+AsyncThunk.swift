/// Running an ``AsyncThunk``: its task and the lifecycle actions it dispatches.
extension ThunkRunner {
  func run<State, Value>(
    _ thunk: AsyncThunk<State, Value>, on target: ThunkTarget<State>, parent: ThunkRun?
  ) -> ThunkTask<Value> {
    checkNotReducing(target, "dispatch(\(thunk.misuseName))")
    let host = host(for: target)
    let admission = admit(id: thunk.id, policy: thunk.policy, in: host)
    let run = admission.run
    guard !admission.isDropped else { return dropped(run) }
    let name = thunk.name
    let body = thunk.body
    let dispatch = host.dispatch
    // The serial, not the run: the run keeps this closure until it finishes.
    let serial = run.serial
    let (pending, cancelled) = (thunk.lifecycle.pending, thunk.lifecycle.cancelled)
    let (fulfilled, rejected) = (thunk.lifecycle.fulfilled, thunk.lifecycle.rejected)
    let announceCancellation: @Sendable () -> Void = { dispatch(cancelled(name, serial)) }
    // Without a wait, `pending` is reduced before `dispatch` returns; after one (queue,
    // debounce), only once the run's turn has come: a run cancelled while waiting dispatches
    // nothing at all. (Written out twice: a closure doing both would be one more allocation a run.)
    let wait = admission.wait
    if wait == nil {
      dispatch(pending(name, serial))
      attach(run, announceCancellation: announceCancellation)
    }
    // Detached, never started here: `dispatch` returns with `pending` reduced and the body not
    // yet run, which reducers and tests of lifecycle actions rely on.
    let task = Task.detached { [self] in
      defer { finish(run) }
      if let wait {
        do {
          try await wait()
          try run.checkCancellation()
        } catch {
          _ = run.claimEnd()
          throw error
        }
        dispatch(pending(name, serial))
        attach(run, announceCancellation: announceCancellation)
      }
      do {
        let value = try await body(ThunkContext(run: run, host: host))
        await run.waitForChildren()
        try run.checkCancellation()
        if run.claimEnd() { dispatch(fulfilled(name, serial, value)) }
        return value
      } catch {
        await run.waitForChildren()
        if run.isCancelled || error is CancellationError {
          if run.claimEnd() { dispatch(cancelled(name, serial)) }
        } else {
          if run.claimEnd() { dispatch(rejected(name, serial, error)) }
          report(error)
        }
        throw error
      }
    }
    return started(task, run: run, parent: parent)
  }
}
