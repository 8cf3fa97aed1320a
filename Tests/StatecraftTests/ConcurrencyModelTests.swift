import Dispatch
import Foundation
import Statecraft
import Synchronization
import Testing

/// One test (or more) for each sentence of Docs/ConcurrencyModel.md; the C-numbers match.
@Suite struct ConcurrencyModelTests {
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
    let mismatches = Atomic<Int>(0)
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
  @Test func c5AndC7BackgroundCommitsAreAllDeliveredInCommitOrder() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    await runOnThreads(4) { _ in
      for _ in 0..<2_500 { store.dispatch(Increment()) }
    }
    await waitUntil { recorder.values.count == 10_001 }
    #expect(recorder.values == Array(0...10_000))
    #expect(recorder.allOnMainQueue)
  }

  @MainActor
  @Test func c6NewStateRunsOnlyOnTheMainQueue() async {
    let store = makeStore()
    let recorder = Recorder<TestState>()
    store.subscribe(recorder)
    await Task.detached { store.dispatch(Increment()) }.value
    DispatchQueue.global().async { store.dispatch(Increment()) }
    await waitUntil { recorder.values.count == 3 }
    #expect(recorder.values.map(\.count) == [0, 1, 2])
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
  @Test func c7DispatchOnMainFirstDeliversEarlierBackgroundCommits() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    // Committed on another thread; its delivery waits for the main queue, which this test holds.
    await Task.detached { store.dispatch(Add(amount: 10)) }.value
    store.dispatch(Increment())
    #expect(recorder.values == [0, 10, 11])
  }

  @MainActor
  @Test func c7DispatchOnMainAfterAnAwaitStillDeliversSynchronously() async {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    try? await Task.sleep(for: .milliseconds(1))
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

  @MainActor
  @Test func c12StoreWithSubscribersAndMiddlewareIsReleased() {
    let passThrough: Middleware<TestState> = { _, _ in { next in { next($0) } } }
    let recorder = Recorder<Int>()
    weak var weakStore: Store<TestState>?
    do {
      let store = makeStore(middleware: [passThrough])
      store.subscribe(recorder) { $0.select(\.count) }
      let token = store.subscribe({ $0.select(\.count) }, receive: { _ in })
      store.dispatch(Increment())
      weakStore = store
      token.cancel()
    }
    #expect(weakStore == nil)
    #expect(recorder.values == [0, 1])
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
}
