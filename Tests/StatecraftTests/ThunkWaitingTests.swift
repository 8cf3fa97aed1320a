import Dispatch
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

/// ReactorKit's `mutate`: a thunk that dispatches the actions of a sequence, in order, as they
/// arrive, and stops when cancelled.
func dispatchingEach<Actions: AsyncSequence & Sendable>(of actions: Actions) -> Thunk<TestState>
where Actions.Element: Sendable {
  Thunk { context in
    for try await action in actions {
      try context.checkCancellation()
      if let action = action as? any Action { context.dispatch(action) }
    }
  }
}

@Suite(.catchesHangs) struct ThunkWaitingTests {
  @Test func asyncSequenceOfActionsIsDispatchedInOrder() async throws {
    // ReactorKit's mutate: setLoading(true) -> value -> setLoading(false).
    let labels = Log<String>()
    let steps = AsyncStream<SetLabel> { continuation in
      for label in ["loading", "value", "done"] { continuation.yield(SetLabel(label: label)) }
      continuation.finish()
    }
    let recorder: Middleware<TestState> = { _, _ in
      { next in
        { action in
          if let action = action as? SetLabel { labels.append(action.label) }
          next(action)
        }
      }
    }
    let recorded = makeStore(middleware: [recorder])
    try await recorded.dispatch(dispatchingEach(of: steps)).value
    #expect(labels.elements == ["loading", "value", "done"])
    #expect(recorded.state.label == "done")
  }

  @Test func aSequenceOfActionsOfDifferentTypesIsDispatchedInOrder() async throws {
    let steps = AsyncStream<any Action> { continuation in
      continuation.yield(SetLabel(label: "loading"))
      continuation.yield(Increment())
      continuation.yield(SetLabel(label: "done"))
      continuation.finish()
    }
    let store = makeStore()
    try await store.dispatch(dispatchingEach(of: steps)).value
    #expect(store.state.count == 1)
    #expect(store.state.label == "done")
  }

  @Test func cancelledSequenceDispatchesNothingMore() async {
    let store = makeStore()
    let (actions, continuation) = AsyncStream.makeStream(of: Increment.self)
    let task = store.dispatch(dispatchingEach(of: actions))
    continuation.yield(Increment())
    #expect(await eventually { store.state.count > 0 })
    task.cancel()
    continuation.yield(Increment())
    continuation.finish()
    _ = try? await task.value
    #expect(store.state.count == 1)
  }

  @Test func takeWaitsForAMatchingAction() async throws {
    let store = makeStore()
    let waiter = AsyncThunk<TestState, Int>("waiter") { context in
      let add = try await context.take(Add.self, where: { $0.amount > 5 })
      return add.amount
    }
    let task = store.dispatch(waiter)
    let done = Guarded(false)
    let feeder = Task {
      // The thunk may not be waiting yet; only actions after it starts count, so keep feeding
      // both a rejected and an accepted action until it has taken one.
      while !done.withLock({ $0 }) {
        store.dispatch(Add(amount: 1))
        store.dispatch(Add(amount: 9))
        await MonotonicClock.sleep(for: .milliseconds(1))
      }
    }
    let taken = try await task.value
    done.withLock { $0 = true }
    await feeder.value
    #expect(taken == 9)
  }

  @Test func conditionReturnsWhenTheStateMeetsIt() async throws {
    let store = makeStore()
    let waiter = Thunk<TestState> { context in
      try await context.condition { $0.count >= 3 }
      context.dispatch(SetLabel(label: "reached"))
    }
    let task = store.dispatch(waiter)
    for _ in 0..<3 { store.dispatch(Increment()) }
    try await task.value
    #expect(store.state.label == "reached")
  }

  @Test func conditionAlreadyMetReturnsAtOnce() async throws {
    let store = makeStore()
    store.dispatch(Add(amount: 10))
    let waiter = store.dispatch(
      Thunk<TestState> { context in
        try await context.condition { $0.count == 10 }
        context.dispatch(SetLabel(label: "met"))
      })
    #expect(await endsWithin(.patience) { _ = try? await waiter.value })
    #expect(store.state.label == "met")
  }

  /// A commit between `condition`'s first test of the state and the moment it starts listening
  /// is not missed: it would otherwise wait for the next action.
  @Test func conditionMetJustBeforeItListensReturns() async throws {
    let store = makeStore()
    let firstTest = Guarded(true)
    let waiter = store.dispatch(
      Thunk<TestState> { context in
        try await context.condition(
          { state in
            guard firstTest.withLock({ $0 }) else { return state.count >= 1 }
            firstTest.withLock { $0 = false }
            // Another thread commits the change now, before the listener is added.
            DispatchQueue.global().sync { store.dispatch(Increment()) }
            return false
          }, timeout: .patience)
        context.dispatch(SetLabel(label: "met"))
      })
    try await waiter.value
    #expect(store.state.label == "met")
  }

  @Test func waitingTimesOut() async {
    let store = makeStore()
    let waiter = Thunk<TestState> { context in
      _ = try await context.take(SetLabel.self, timeout: .milliseconds(20))
    }
    let error = await #expect(throws: ThunkTimeoutError.self) {
      try await store.dispatch(waiter).value
    }
    #expect(error?.timeout == .milliseconds(20))
  }

  @Test func cancellingAThunkEndsItsWait() async {
    let store = makeStore()
    let waiter = Thunk<TestState> { context in
      _ = try await context.take(SetLabel.self)
    }
    let task = store.dispatch(waiter)
    await MonotonicClock.sleep(for: .milliseconds(20))
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }
}
