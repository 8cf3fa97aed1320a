import Dispatch
import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

/// One test (or more) for each sentence of Docs/ConcurrencyModel.md; the C-numbers match.
@Suite(.catchesHangs) struct ConcurrencyModelTests {
  /// Bumped inside the reducer, outside any lock of the test's: if two reductions ever ran at
  /// once, ThreadSanitizer reports this race and the final count comes out short.
  nonisolated(unsafe) static var unguardedReductions = 0

  @Test func c1NoDispatchIsLostFromFourThreads() async {
    Self.unguardedReductions = 0
    let store = Store<Int>(
      reducer: { action, state in
        Self.unguardedReductions += 1
        return (state ?? 0) + (action is Increment ? 1 : 0)
      },
      state: 0
    )
    await runOnThreads(4) { _ in
      for _ in 0..<10_000 { store.dispatch(Increment()) }
    }
    #expect(store.state == 40_000)
    #expect(Self.unguardedReductions == 40_000)
  }

  @Test func c1AndC2HoldThroughMiddlewareToo() async {
    // With middleware the process lock orders the chain; a follow-up dispatched by the
    // middleware is queued behind its action.
    let followUp: Middleware<TestState> = { dispatch, _ in
      { next in
        { action in
          next(action)
          if let action = action as? Tagged { dispatch(Add(amount: action.thread + 1)) }
        }
      }
    }
    let store = makeStore(middleware: [followUp])
    await dispatchTaggedActionsAndCheckTheirOrder(to: store)
    #expect(store.state.count == 2_000 * (1 + 2 + 3 + 4))
  }

  @Test func c1DispatchFromTasksAndActors() async {
    let store = makeStore()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { for _ in 0..<500 { store.dispatch(Increment()) } }
      }
      group.addTask { @MainActor in for _ in 0..<500 { store.dispatch(Increment()) } }
    }
    #expect(store.state.count == 4_500)
  }

  @Test func c2ActionsFromOneThreadAreReducedInTheirOrder() async {
    let store = makeStore()
    await dispatchTaggedActionsAndCheckTheirOrder(to: store)
  }

  @Test func c3ReadersOnlySeeCommittedStates() async {
    // The in-place reducer sets `count` and then, separately, `label`; a reader that saw a state
    // in the middle of a reduction would find them disagreeing.
    let store = Store<TestState>(
      reducer: { state, action in
        guard action is Increment else { return }
        state.count += 1
        state.label = String(state.count)
      },
      state: TestState(count: 0, label: "0")
    )
    let mismatches = TestAtomic<Int>(0)
    await runOnThreads(4) { thread in
      for _ in 0..<5_000 {
        if thread < 2 {
          store.dispatch(Increment())
        } else {
          let state = store.state
          if state.label != String(state.count) { mismatches.add(1, ordering: .relaxed) }
        }
      }
    }
    #expect(mismatches.load(ordering: .relaxed) == 0)
    #expect(store.state.count == 10_000)
  }

  @MainActor
  @Test func c4DispatchFromSubscriberIsQueuedAndEverySubscriberSeesEveryState() async {
    // ReSwift: when A dispatches from newState, B sees [0, 3, 3, 3] instead of [0, 1, 2, 3].
    let store = makeStore()
    let a = Recorder<Int>()
    let b = Recorder<Int>()
    a.onNewState = { count in
      if count > 0, count < 3 { store.dispatch(Increment()) }
    }
    store.subscribe(a) { $0.select(\.count) }
    store.subscribe(b) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(a.values == [0, 1, 2, 3])
    #expect(b.values == [0, 1, 2, 3])
    #expect(store.state.count == 3)
  }

  @MainActor
  @Test func c4DispatchFromSubscriberRunsAfterTheRoundNotInsideIt() async {
    let store = makeStore()
    let events = Log<String>()
    let a = Recorder<Int>()
    let b = Recorder<Int>()
    a.onNewState = { count in
      events.append("a\(count)")
      if count == 1 { store.dispatch(Increment()) }
      events.append("a\(count) done")
    }
    b.onNewState = { count in events.append("b\(count)") }
    store.subscribe(a) { $0.select(\.count) }
    store.subscribe(b) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(
      events.elements == ["a0", "a0 done", "b0", "a1", "a1 done", "b1", "a2", "a2 done", "b2"])
  }

  @Test func c4DispatchFromMiddlewareIsQueuedAfterTheCurrentAction() {
    let log = Log<String>()
    let follower: Middleware<TestState> = { dispatch, _ in
      { next in
        { action in
          log.append("before \(type(of: action))")
          if action is Increment { dispatch(SetLabel(label: "follow-up")) }
          next(action)
          log.append("after \(type(of: action))")
        }
      }
    }
    let store = makeStore(middleware: [follower])
    store.dispatch(Increment())
    #expect(
      log.elements == [
        "before Increment", "after Increment", "before SetLabel", "after SetLabel",
      ])
    #expect(store.state.count == 1)
    #expect(store.state.label == "follow-up")
  }

  @MainActor
  @Test func c5SubscribersAreCalledInSubscriptionOrder() {
    let store = makeStore()
    let events = Log<String>()
    let recorders = (0..<5).map { _ in Recorder<Int>() }
    for (index, recorder) in recorders.enumerated() {
      recorder.onNewState = { _ in events.append("\(index)") }
      store.subscribe(recorder) { $0.select(\.count) }
    }
    store.subscribe(recorders[1]) { $0.select(\.count) }  // moves to the end
    let before = events.elements.count
    store.dispatch(Increment())
    #expect(Array(events.elements.dropFirst(before)) == ["0", "2", "3", "4", "1"])
  }

  @MainActor
  @Test func c5BackgroundCommitsArriveNewestFirstNeverAnOlderOne() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    await runOnThreads(4) { _ in
      for _ in 0..<2_500 { store.dispatch(Increment()) }
    }
    await waitUntil { recorder.values.last == 10_000 }
    let values = recorder.values
    #expect(values.first == 0)
    #expect(values.last == 10_000)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "an older state came later")
    #expect(recorder.allOnMainQueue)
  }

  @MainActor
  @Test func c5StatesSupersededWhileTheMainQueueIsBusyAreSkipped() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    onAnotherThreadWhileHoldingTheMainQueue {
      for _ in 0..<1_000 { store.dispatch(Increment()) }
    }
    await waitUntil { recorder.values.count == 2 }
    #expect(recorder.values == [0, 1_000])
  }

  @MainActor
  @Test func c5SkipRepeatsComparesWithTheLastValueDelivered() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    onAnotherThreadWhileHoldingTheMainQueue {
      store.dispatch(Increment())  // 1, superseded before the main queue gets to it
      store.dispatch(Add(amount: -1))  // back to 0, the value last delivered
      store.dispatch(SetLabel(label: "changed"))
    }
    store.dispatch(SetLabel(label: "on main"))  // a round, synchronously (C7)
    #expect(recorder.values == [0])
  }

  @MainActor
  @Test func c5StatesMadeBySubscribersDispatchesAreEachDelivered() {
    let store = makeStore()
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    first.onNewState = { count in
      if count > 0, count < 5 { store.dispatch(Increment()) }
    }
    store.subscribe(first) { $0.select(\.count) }
    store.subscribe(second) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(first.values == [0, 1, 2, 3, 4, 5])
    #expect(second.values == [0, 1, 2, 3, 4, 5])
  }

  @MainActor
  @Test func c6NewStateRunsOnlyOnTheMainQueue() async {
    let store = makeStore()
    let recorder = Recorder<TestState>()
    store.subscribe(recorder)
    await Task.detached { store.dispatch(Increment()) }.value
    DispatchQueue.global().async { store.dispatch(Increment()) }
    // The second commit may come before the first one's round: the round then delivers the
    // newest state only (C5), so 1 may be skipped, never delivered after 2.
    await waitUntil { recorder.values.last?.count == 2 }
    let counts = recorder.values.map(\.count)
    #expect(counts == [0, 1, 2] || counts == [0, 2], "\(counts)")
    #expect(recorder.allOnMainQueue)
  }

  @MainActor
  @Test func c7DispatchOnMainNotifiesBeforeReturning() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }

  @MainActor
  @Test func c7DispatchOnMainDeliversTheNewestStateIncludingEarlierBackgroundCommits() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    // Its round waits for the main queue, which this test holds.
    onAnotherThreadWhileHoldingTheMainQueue {
      store.dispatch(Add(amount: 10))
    }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 11])
  }

  @MainActor
  @Test func c7DispatchOnMainNotifiesWhileAnotherThreadRunsABatchBody() {
    // Without middleware a batch commits at once, so a round need not wait for its end.
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    let started = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    Thread {
      store.batch {
        started.signal()
        proceed.wait()
        store.dispatch(Add(amount: 10))
      }
    }.start()
    started.wait()
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
    proceed.signal()
  }

  @MainActor
  @Test func c7DispatchOnMainAfterAnAwaitStillDeliversSynchronously() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    await MonotonicClock.sleep(for: .milliseconds(1))
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }

  @MainActor
  @Test func c8SubscriberGetsTheCurrentStateThenOnlyLaterOnes() async {
    let store = makeStore()
    store.dispatch(Add(amount: 5))
    await Task.detached { store.dispatch(Add(amount: 1)) }.value  // delivery still pending
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    #expect(recorder.values == [6])
    store.dispatch(Increment())
    #expect(recorder.values == [6, 7])
  }

  @MainActor
  @Test func c10UnsubscribeDuringARoundTakesEffectAtOnce() {
    let store = makeStore()
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    first.onNewState = { count in
      if count == 1 { store.unsubscribe(second) }
    }
    store.subscribe(first) { $0.select(\.count) }
    store.subscribe(second) { $0.select(\.count) }
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(first.values == [0, 1, 2])
    #expect(second.values == [0])
  }

  @MainActor
  @Test func c10UnsubscribeFromAnotherThread() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    await Task.detached { [recorder] in store.unsubscribe(recorder) }.value
    store.dispatch(Increment())
    #expect(recorder.values == [0])
  }

  @Test func c12MiddlewareKeptAfterTheStoreIsGoneIsHarmless() {
    let kept = Guarded<(DispatchFunction, GetState<TestState>, DispatchFunction)?>(nil)
    let keeper: Middleware<TestState> = { dispatch, getState in
      { next in
        kept.withLock { $0 = (dispatch, getState, next) }
        return next
      }
    }
    weak var weakStore: Store<TestState>?
    do {
      let store = makeStore(middleware: [keeper])
      store.dispatch(Increment())
      weakStore = store
    }
    #expect(weakStore == nil)
    let functions = kept.withLock { $0 }
    #expect(functions != nil)
    if let (dispatch, getState, next) = functions {
      dispatch(Increment())
      next(Increment())
      #expect(getState() == nil)
    }
  }

  /// A thunk's `dispatch` and `getState`, kept after its run and its store are gone, are a no-op
  /// and `nil`: they do not keep the store.
  @Test func c12ThunkFunctionsKeptAfterTheStoreIsGoneAreHarmless() {
    let kept = Guarded<(DispatchFunction, GetState<TestState>)?>(nil)
    weak var weakStore: Store<TestState>?
    do {
      let store = makeStore()
      store.dispatch(
        Thunk<TestState> { dispatch, getState in
          kept.withLock { $0 = (dispatch, getState) }
        })
      let functions = kept.withLock { $0 }
      #expect(functions?.1() != nil)
      weakStore = store
    }
    #expect(weakStore == nil)
    if let (dispatch, getState) = kept.withLock({ $0 }) {
      dispatch(Increment())
      #expect(getState() == nil)
    } else {
      Issue.record("the thunk's body did not run")
    }
  }

  /// The engine is released with the store, not only the `Store` object: a reducer's capture
  /// goes too.
  @MainActor
  @Test func c12StoreWithSubscribersAndMiddlewareIsReleased() {
    let passThrough: Middleware<TestState> = { _, _ in { next in { next($0) } } }
    let recorder = Recorder<Int>()
    weak var weakStore: Store<TestState>?
    weak var capture: Capture?
    do {
      let captured = Capture()
      capture = captured
      let store = makeStore(capturing: captured, middleware: [passThrough])
      store.subscribe(recorder) { $0.select(\.count) }
      let token = store.subscribe({ $0.select(\.count) }, receive: { _ in })
      store.dispatch(Increment())
      weakStore = store
      token.cancel()
    }
    #expect(weakStore == nil)
    #expect(capture == nil)
    #expect(recorder.values == [0, 1])
  }

  @MainActor
  @Test func c4DispatchFromTheFirstNewStateIsQueuedNotNested() {
    let store = makeStore()
    let events = Log<String>()
    let recorder = Recorder<Int>()
    recorder.onNewState = { count in
      events.append("got \(count)")
      if count == 0 { store.dispatch(Increment()) }
      events.append("done \(count)")
    }
    store.subscribe(recorder) { $0.select(\.count) }
    #expect(events.elements == ["got 0", "done 0", "got 1", "done 1"])
  }

  @MainActor
  @Test(arguments: [false, true])
  func c4BatchFromNewStateIsQueuedBehindAnEarlierDispatch(withMiddleware: Bool) {
    let log = Log<String>()
    let spy = typeLogger(log)
    let store = makeStore(middleware: withMiddleware ? [spy] : [])
    let recorder = Recorder<TestState>()
    recorder.onNewState = { state in
      guard state.count == 1 else { return }
      store.dispatch(SetLabel(label: "first"))
      store.batch {
        store.dispatch(Add(amount: 10))
        store.dispatch(Add(amount: 100))
      }
    }
    store.subscribe(recorder)
    store.dispatch(Increment())
    if withMiddleware { #expect(log.elements == ["Increment", "SetLabel", "Add", "Add"]) }
    #expect(recorder.values.map(\.count) == [0, 1, 111])
    #expect(recorder.values.last.map(\.label) == "first")
  }

  @MainActor
  @Test func c11TrafficFromOtherThreadsIsNotAnEndlessLoop() async {
    // A subscriber that acknowledges every count it sees, while another thread dispatches more
    // than the limit: the acknowledgements react to other threads' states, not to their own.
    let store = makeStore()
    let recorder = Recorder<Int>()
    recorder.onNewState = { count in store.dispatch(SetLabel(label: "saw \(count)")) }
    store.subscribe(recorder) { $0.select(\.count) }
    let total = Store<TestState>.reentrantDispatchLimit + 500
    await runOnThreads(1) { _ in
      for _ in 0..<total { store.dispatch(Increment()) }
    }
    await waitUntil { recorder.values.last == total }
    #expect(recorder.values.last == total)
    #expect(store.state.label == "saw \(total)")
  }

  @Test func c12AStoreWithAThunkWaitingInTakeIsReleasedAndTheThunkCancelled() async throws {
    let (task, isReleased) = await releaseTheStoreWhileAThunkWaits { wait in
      Thunk<TestState> { context in try await wait(context) }
    }
    #expect(isReleased)
    #expect(task.cancellationReason != nil)
    // Bounded: if the thunk were never cancelled, awaiting its value would never return.
    let ended = await endsWithin(.patience) { _ = try? await task.value }
    #expect(ended, "the waiting thunk did not end with the store")
  }

  /// A thunk without an identifier whose body ended inside `dispatch` but whose child still runs
  /// outlives the call: releasing the store cancels it and its child.
  @Test func c12AnInlineThunkWhoseChildStillRunsIsCancelledWithTheStore() async throws {
    let (task, isReleased) = await releaseTheStoreWhileAThunkWaits { wait in
      Thunk<TestState> { dispatch, _ in
        dispatch(Thunk<TestState> { context in try await wait(context) })
      }
    }
    #expect(isReleased)
    #expect(task.cancellationReason == .storeReleased)
    let ended = await endsWithin(.patience) { _ = try? await task.value }
    #expect(ended, "the inline thunk's run did not end with the store")
  }

  /// Dispatches the thunk `make` builds around `wait` (which waits in `take` for an action that
  /// never comes), lets the store go once the thunk waits, and returns the thunk's task and
  /// whether the store was released.
  private func releaseTheStoreWhileAThunkWaits(
    _ make: (
      _ wait: @escaping @Sendable (ThunkContext<TestState>) async throws -> Void
    ) -> Thunk<TestState>
  ) async -> (ThunkTask<Void>, isReleased: Bool) {
    let parked = Flag()
    weak var weakStore: Store<TestState>?
    let task: ThunkTask<Void>
    do {
      let store = makeStore()
      task = store.dispatch(
        make { context in
          _ = try await context.take(where: { _ in
            parked.set()
            return false
          })
        })
      // The predicate runs for actions reduced after the thunk started waiting, which only
      // the thunk's own task knows; the bound is a failure bound only.
      let deadline = MonotonicClock.now + Interval.patience.nanoseconds
      while !parked.isSet, MonotonicClock.now < deadline {
        store.dispatch(Increment())
        await MonotonicClock.sleep(for: .milliseconds(1))
      }
      #expect(parked.isSet)
      weakStore = store
    }
    return (task, weakStore == nil)
  }

  @MainActor
  @Test func c13AnInPlaceChangeFromAnotherThreadCopiesNothingWhileTheMainQueueIsBusy() async {
    let copies = CountedArray.Copies()
    let store = makeLargeStore(count: 1_000_000, copies: copies)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select { $0[0] } }
    // 500 commits while the main queue is held (the old engine copied the state 499 times);
    // more only holds the shared main queue longer, past 10 s under TSan.
    onAnotherThreadWhileHoldingTheMainQueue {
      for index in 0..<500 { store.dispatch(SetElement(index: index, value: index + 1)) }
    }
    #expect(copies.count.load(ordering: .relaxed) == 0)
    await waitUntil { recorder.values.count == 2 }
    #expect(recorder.values == [0, 1])
  }

  /// A round's subscribers run with no reference to the state left: a commit from another
  /// thread while a subscriber is being notified changes the state in place. Before, a round
  /// held the state until its last subscriber returned, and that commit copied all of it.
  @MainActor
  @Test(arguments: [false, true])
  func c13ACommitWhileARoundNotifiesCopiesNothing(roundFromTheMainQueue: Bool) async {
    let copies = CountedArray.Copies()
    let store = makeLargeStore(count: 100_000, copies: copies)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select { $0[0] } }
    recorder.onNewState = { value in
      guard value == 1 else { return }
      onAnotherThreadWhileHoldingTheMainQueue {
        store.dispatch(SetElement(index: 1, value: 1))
      }
    }
    if roundFromTheMainQueue {
      store.dispatch(SetElement(index: 0, value: 1))  // C7: its round runs before it returns
    } else {
      onAnotherThreadWhileHoldingTheMainQueue { store.dispatch(SetElement(index: 0, value: 1)) }
    }
    await waitUntil { recorder.values == [0, 1] }
    #expect(recorder.values == [0, 1])
    #expect(store.state[1] == 1, "the commit during the round was reduced")
    #expect(copies.count.load(ordering: .relaxed) == 0)
  }

  /// Subscriptions made from a subscriber while a round hands out what its first phase held:
  /// the round's list of held values must not move under it, and everyone gets their value.
  @MainActor
  @Test func subscribingFromASubscriberDuringARoundReachesEveryone() {
    let store = makeStore()
    let first = Recorder<Int>()
    let last = Recorder<Int>()
    let joiners = (0..<300).map { _ in Recorder<Int>() }
    store.subscribe(first) { $0.select(\.count) }
    store.subscribe(last) { $0.select(\.count) }
    first.onNewState = { count in
      guard count == 1 else { return }
      for joiner in joiners { store.subscribe(joiner) { $0.select(\.count) } }
    }
    store.dispatch(Increment())
    #expect(first.values == [0, 1])
    #expect(last.values == [0, 1])
    #expect(joiners.allSatisfy { $0.values == [1] })
    store.dispatch(Increment())
    #expect(joiners.allSatisfy { $0.values == [1, 2] })
  }

  @MainActor
  @Test func c14OtherThreadsTrafficLeavesTheMainQueueTurnsInBetweenRounds() async {
    let store = makeStore()
    let recorders = (0..<100).map { _ in Recorder<Int>() }
    for recorder in recorders { store.subscribe(recorder) { $0.select(\.count) } }
    // Another thread commits until a block queued on the main queue has run: an engine whose
    // drain held the main queue for as long as commits came would keep it from running until
    // the burst gives up, ``Interval/patience`` after the block was queued (a failure bound
    // only). A time, not a count, bounds the burst, and it counts from the block's posting, not
    // the burst's start: however long the first rounds take on a busy machine, the block has
    // the whole bound to get its turn.
    let stop = Flag()
    let posted = Guarded<UInt64?>(nil)
    let burst = Task.detached {
      while !stop.isSet {
        if let posted = posted.withLock({ $0 }),
          MonotonicClock.now > posted + Interval.patience.nanoseconds
        {
          return false
        }
        store.dispatch(Increment())
      }
      return true
    }
    await waitUntil { recorders[0].values.count >= 3 }  // rounds are running
    await withCheckedContinuation { continuation in
      posted.withLock { $0 = MonotonicClock.now }
      DispatchQueue.main.async {
        stop.set()
        continuation.resume()
      }
    }
    let stoppedByTheMainQueue = await burst.value
    #expect(stoppedByTheMainQueue, "the main queue got no turn during the burst")
    await waitUntil { recorders[99].values.last == store.state.count }
    #expect(recorders[99].values.last == store.state.count)
  }

  /// Dispatches 2,000 tagged actions from each of 4 threads, then checks that all were reduced
  /// and that each thread's actions were reduced in the order it dispatched them.
  private func dispatchTaggedActionsAndCheckTheirOrder(to store: Store<TestState>) async {
    await runOnThreads(4) { thread in
      for sequence in 0..<2_000 { store.dispatch(Tagged(thread: thread, sequence: sequence)) }
    }
    let items = store.state.items
    #expect(items.count == 8_000)
    for thread in 0..<4 {
      let sequences = items.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 }
      #expect(sequences == Array(0..<2_000))
    }
  }

  @Test func c16ReplacingTheMiddlewareWhileThreadsDispatchLosesNothing() async {
    let store = makeStore()
    let seen = TestAtomic<Int>(0)
    let counting: Middleware<TestState> = { _, _ in
      { next in
        { action in
          seen.add(1, ordering: .relaxed)
          next(action)
        }
      }
    }
    let swaps = Task.detached {
      for round in 0..<200 {
        store.middleware = round.isMultiple(of: 2) ? [counting] : []
        await Task.yield()
      }
    }
    await runOnThreads(4) { _ in
      for _ in 0..<2_000 { store.dispatch(Increment()) }
    }
    await swaps.value
    #expect(store.state.count == 8_000)
    #expect(seen.load(ordering: .relaxed) <= 8_000)
    store.middleware = [counting]
    let before = seen.load(ordering: .relaxed)
    store.dispatch(Increment())
    #expect(seen.load(ordering: .relaxed) == before + 1)
    #expect(store.middleware.count == 1)
  }
}
