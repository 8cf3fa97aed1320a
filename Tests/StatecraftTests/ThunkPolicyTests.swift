import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

/// Effect policies, each driven by a `TestClock`: nothing sleeps for real.
@Suite(.catchesHangs) struct ThunkPolicyTests {
  private func makeClockedStore() -> (Store<TestState>, TestClock) {
    let store = makeStore()
    let clock = TestClock()
    store.thunkEnvironment[ThunkClockKey.self] = clock
    return (store, clock)
  }

  /// Waits, without real sleeping, until `count` tasks sleep on the clock.
  private func sleepers(_ count: Int, on clock: TestClock) async -> Bool {
    await eventually { clock.sleeperCount >= count }
  }

  private func wasDropped(_ task: ThunkTask<Void>) async -> Bool {
    do {
      try await task.value
      return false
    } catch {
      return error is CancellationError
    }
  }

  @Test func debounceRunsOnlyTheLastOfABurst() async throws {
    let (store, clock) = makeClockedStore()
    let search = { (query: String) in
      Thunk<TestState>(id: "search", policy: .debounce(.milliseconds(250))) { context in
        context.dispatch(SetLabel(label: query))
      }
    }
    let first = store.dispatch(search("h"))
    #expect(await sleepers(1, on: clock))
    await clock.advance(by: .milliseconds(100))
    let second = store.dispatch(search("ho"))
    #expect(await wasDropped(first))
    #expect(await sleepers(1, on: clock))
    await clock.advance(by: .milliseconds(249))
    #expect(store.state.label == "", "not yet: 250 ms have not passed since the last one")
    await clock.advance(by: .milliseconds(1))
    try await second.value
    #expect(store.state.label == "ho")
  }

  @Test func waitForSleepersSeesOnlyTheRunThatSupersededTheOthers() async throws {
    // What the Testing article shows: dispatch a burst, wait for the clock's sleepers, advance.
    // A superseded run is cancelled before it sleeps or while it does, and never counts.
    for _ in 0..<200 {
      let (store, clock) = makeClockedStore()
      let search = { (query: String) in
        Thunk<TestState>(id: "search", policy: .debounce(.milliseconds(300))) { context in
          context.dispatch(SetLabel(label: query))
        }
      }
      let first = store.dispatch(search("Empire"))
      let last = store.dispatch(search("Hope"))
      #expect(first.cancellationReason != nil)
      await clock.waitForSleepers(1)
      #expect(clock.sleeperCount == 1)
      await clock.advance(by: .milliseconds(300))
      #expect(await endsWithin(.patience) { try? await last.value })
      #expect(store.state.label == "Hope")
    }
  }

  @Test func waitForSleepersFailsTheTestWhenNothingWaits() async {
    let clock = TestClock()
    await withKnownIssue {
      await clock.waitForSleepers(1, timeout: .milliseconds(20))
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("0 of the 1 tasks")
    }
  }

  @Test func debounceDispatchesNoLifecycleWhileItWaits() async throws {
    let clock = TestClock()
    let log = Log<String>()
    let load = {
      AsyncThunk<TestState, Int>("load", id: "load", policy: .debounce(.seconds(1))) { _ in 7 }
    }
    let store = Store<TestState>(
      reducer: { (_: inout TestState, action: any Action) in
        if let action = action as? ThunkLifecycle<Int> { log.append("\(action.phase)") }
      }, state: TestState())
    store.thunkEnvironment[ThunkClockKey.self] = clock
    _ = store.dispatch(load())
    let last = store.dispatch(load())
    #expect(await sleepers(1, on: clock))
    #expect(log.elements.isEmpty)
    await clock.advance(by: .seconds(1))
    #expect(try await last.value == 7)
    #expect(log.elements == ["pending", "fulfilled(7)"])
  }

  @Test func throttleDropsWhatComesWithinTheInterval() async throws {
    let (store, clock) = makeClockedStore()
    let add = {
      Thunk<TestState>(id: "add", policy: .throttle(.seconds(1))) { dispatch, _ in
        dispatch(Increment())
      }
    }
    try await store.dispatch(add()).value
    #expect(await wasDropped(store.dispatch(add())))
    await clock.advance(by: .milliseconds(999))
    #expect(await wasDropped(store.dispatch(add())))
    await clock.advance(by: .milliseconds(1))
    try await store.dispatch(add()).value
    #expect(store.state.count == 2)
  }

  @Test func dropWhileRunningDropsUntilTheRunningOneEnds() async throws {
    let (store, clock) = makeClockedStore()
    let refresh = {
      Thunk<TestState>(id: "refresh", policy: .dropWhileRunning) { context in
        try await context.clock.sleep(for: .seconds(1))
        context.dispatch(Increment())
      }
    }
    let running = store.dispatch(refresh())
    #expect(await sleepers(1, on: clock))
    #expect(await wasDropped(store.dispatch(refresh())))
    await clock.advance(by: .seconds(1))
    try await running.value
    try await store.dispatch(Thunk<TestState>(id: "refresh", policy: .dropWhileRunning) { _ in })
      .value
    #expect(store.state.count == 1)
  }

  @Test func queueRunsOneAtATimeInOrder() async throws {
    let (store, clock) = makeClockedStore()
    let log = Log<String>()
    let step = { (name: String) in
      Thunk<TestState>(id: "save", policy: .queue) { context in
        log.append("start \(name)")
        try await context.clock.sleep(for: .seconds(1))
        log.append("end \(name)")
      }
    }
    let first = store.dispatch(step("a"))
    let second = store.dispatch(step("b"))
    let third = store.dispatch(step("c"))
    for expected in 1...3 {
      #expect(await sleepers(1, on: clock))
      #expect(log.elements.count == expected * 2 - 1)
      await clock.advance(by: .seconds(1))
    }
    try await first.value
    try await second.value
    try await third.value
    #expect(log.elements == ["start a", "end a", "start b", "end b", "start c", "end c"])
  }

  @Test func aThunkWithoutAnIdAlwaysRunsAtOnce() async throws {
    let (store, _) = makeClockedStore()
    for _ in 0..<3 {
      try await store.dispatch(
        Thunk<TestState>(policy: .dropWhileRunning) { dispatch, _ in dispatch(Increment()) }
      ).value
    }
    #expect(store.state.count == 3)
  }

  /// Issue 29: awaiting a cancelled thunk throws `CancellationError`, and its task says why.
  @Test func aCancelledThunkSaysWhyItEnded() async {
    let store = makeStore()
    // A gate of its own for each thunk: cancelling a task that iterates an AsyncStream ends the
    // stream for every task that iterates it.
    let gates = Log<AsyncStream<Void>.Continuation>()
    let waiting = { (id: ThunkID, policy: ThunkPolicy) in
      let (gate, open) = AsyncStream.makeStream(of: Void.self)
      gates.append(open)
      return Thunk<TestState>(id: id, policy: policy) { context in
        for await _ in gate { break }
        try context.checkCancellation()
      }
    }
    let superseded = store.dispatch(waiting("search", .cancelPrevious))
    let newer = store.dispatch(waiting("search", .cancelPrevious))
    let running = store.dispatch(waiting("load", .dropWhileRunning))
    let dropped = store.dispatch(waiting("load", .dropWhileRunning))
    let byCaller = store.dispatch(waiting("other", .concurrent))
    byCaller.cancel()
    let byID = store.dispatch(waiting("named", .concurrent))
    store.cancelThunks(id: "named")
    #expect(superseded.cancellationReason == .superseded(by: .cancelPrevious))
    #expect(dropped.cancellationReason == .dropped(by: .dropWhileRunning))
    #expect(byCaller.cancellationReason == .cancelledByCaller)
    #expect(byID.cancellationReason == .cancelledByID("named"))
    #expect(newer.cancellationReason == nil)
    #expect(running.cancellationReason == nil)
    #expect(await wasDropped(superseded))
    #expect(
      superseded.cancellationReason?.description
        == "superseded by a newer run with the same id (cancelPrevious)")
    for open in gates.elements { open.finish() }
    for task in [newer, running] { try? await task.value }
  }

  @Test func aThunkOfAReleasedStoreSaysSo() async {
    var store: Store<TestState>? = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let task = store?.dispatch(
      Thunk<TestState> { _ in
        for await _ in gate { break }
      })
    store = nil
    #expect(task?.cancellationReason == .storeReleased)
    open.finish()
    _ = try? await task?.value
  }
}
