import StatecraftTestSupport
import Testing

@testable import Statecraft

/// A run is linked to its runner only while something else than its own task may reach it
/// (`RunFlag.linked`): the runner's list holds exactly the runs that are still running.
@Suite(.catchesHangs) struct ThunkRunTests {
  /// Runs of every kind, dispatched from a task and awaited, leave nothing in the runner's list:
  /// bodies that never suspend (their run finishes inside `Task.immediate`, before its task is
  /// linked), bodies that suspend (linked, then unlinked when they end), synchronous bodies with
  /// and without an identifier, and a parent with a child.
  @Test func finishedRunsLeaveNothingInTheRunnersList() async throws {
    let store = makeStore()
    let neverSuspends = Thunk<TestState> { context in context.dispatch(Increment()) }
    let suspends = Thunk<TestState> { context in
      await Task.yield()
      context.dispatch(Increment())
    }
    let synchronous = Thunk<TestState> { dispatch, _ in dispatch(Increment()) }
    let identified = Thunk<TestState>(id: "queued", policy: .queue) { dispatch, _ in
      dispatch(Increment())
    }
    let parent = Thunk<TestState> { context in context.dispatch(suspends) }
    for _ in 0..<200 {
      try await store.dispatch(neverSuspends).value
      try await store.dispatch(suspends).value
      try await store.dispatch(synchronous).value
      try await store.dispatch(identified).value
      try await store.dispatch(parent).value
    }
    #expect(store.state.count == 1_000)
    #expect(store._thunks.registeredRunCount == 0)
  }

  /// A run that suspended is linked with its task: cancelling it through its `ThunkTask` cancels
  /// the task, and the run leaves the list when it ends.
  @Test func aSuspendedRunIsCancelledThroughItsTask() async {
    let store = makeStore()
    // Waits for an action nobody dispatches: only cancellation ends the wait.
    struct NeverDispatched: Action {}
    let thunk = Thunk<TestState> { context in _ = try await context.take(NeverDispatched.self) }
    let task = await Task.detached { store.dispatch(thunk) }.value
    #expect(store._thunks.registeredRunCount == 1)
    task.cancel()
    let ended = await endsWithin(.patience) {
      await #expect(throws: CancellationError.self) { try await task.value }
    }
    #expect(ended, "the waiting thunk was not cancelled through its task")
    #expect(task.cancellationReason == .cancelledByCaller)
    #expect(store._thunks.registeredRunCount == 0)
  }
}
