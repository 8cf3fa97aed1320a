import Statecraft
import StatecraftTestSupport
import Testing

/// A thunk whose body does not `await` runs and ends inside `dispatch`, without a task, unless it
/// dispatched thunks that still run: ordering, nesting and cancellation stay as for any run.
@Suite(.catchesHangs) struct InlineThunkTests {
  @Test func aSynchronousThunkHasEndedWhenDispatchReturns() async throws {
    let store = makeStore()
    let thunk = Thunk<TestState>(id: "once", policy: .dropWhileRunning) { dispatch, _ in
      dispatch(Increment())
    }
    let first = store.dispatch(thunk)
    // Not dropped: the first run is no longer running.
    let second = store.dispatch(thunk)
    try await first.value
    try await second.value
    #expect(store.state.count == 2)
    #expect(second.cancellationReason == nil)
  }

  @Test func nestedSynchronousThunksRunInOrderBeforeDispatchReturns() async throws {
    let store = makeStore()
    let log = Log<String>()
    let inner = Thunk<TestState> { dispatch, _ in
      log.append("inner")
      dispatch(Add(amount: 10))
    }
    let outer = Thunk<TestState> { dispatch, getState in
      log.append("outer")
      dispatch(inner)
      log.append("outer sees \(getState()?.count ?? -1)")
      dispatch(Increment())
    }
    let task = store.dispatch(outer)
    #expect(store.state.count == 11)
    #expect(log.elements == ["outer", "inner", "outer sees 10"])
    try await task.value
  }

  @Test func aSynchronousThunkWaitsForTheAsyncThunkItDispatched() async throws {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let child = Thunk<TestState> { context in
      for await _ in gate { break }
      context.dispatch(SetLabel(label: "child done"))
    }
    let parent = Thunk<TestState> { dispatch, _ in
      dispatch(child)
      dispatch(Increment())
    }
    let task = store.dispatch(parent)
    #expect(store.state.count == 1)
    open.yield()
    try await task.value
    #expect(store.state.label == "child done")
  }

  @Test func cancellingASynchronousThunkCancelsTheAsyncThunkItDispatched() async {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let child = Thunk<TestState> { context in
      for await _ in gate { break }
      context.dispatch(Add(amount: 100))
    }
    let parent = Thunk<TestState> { dispatch, _ in
      dispatch(child)
      dispatch(Increment())
    }
    let task = store.dispatch(parent)
    task.cancel()
    open.yield()
    _ = try? await task.value
    #expect(task.cancellationReason == .cancelledByCaller)
    #expect(store.state.count == 1)
  }

  @Test func cancellingAnEndedSynchronousThunkKeepsItsValue() async throws {
    let store = makeStore()
    let task = store.dispatch(Thunk<TestState> { dispatch, _ in dispatch(Increment()) })
    task.cancel()
    try await task.value
    #expect(task.cancellationReason != nil)
    #expect(task.cancellationReason == .cancelledByCaller)
    #expect(store.state.count == 1)
  }

  @Test func aDroppedRunThrowsCancellationWithoutATask() async {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let running = store.dispatch(
      Thunk<TestState>(id: "load", policy: .dropWhileRunning) { _ in
        for await _ in gate { break }
      })
    let dropped = store.dispatch(
      Thunk<TestState>(id: "load", policy: .dropWhileRunning) { dispatch, _ in
        dispatch(Increment())
      })
    await #expect(throws: CancellationError.self) { try await dropped.value }
    #expect(dropped.cancellationReason == .dropped(by: .dropWhileRunning))
    open.yield()
    _ = try? await running.value
    #expect(store.state.count == 0)
  }

  @Test func aSynchronousThunkFromAMiddlewareChainBuiltByHandEndsThere() {
    let store = makeStore()
    let thunk = Thunk<TestState> { dispatch, _ in dispatch(Increment()) }
    let middleware: Middleware<TestState> = createThunkMiddleware()
    let dispatch = middleware({ store.dispatch($0) }, { store.state })({ _ in })
    dispatch(thunk)
    #expect(store.state.count == 1)
  }
}
