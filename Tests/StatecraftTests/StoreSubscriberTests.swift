import Dispatch
import Statecraft
import StatecraftTestSupport
import Testing

@MainActor
@Suite(.catchesHangs) struct StoreSubscriberTests {
  @Test func c9DeallocatedSubscriberIsDroppedAndNeverCalled() {
    let store = makeStore()
    var calls = 0
    weak var weakRecorder: Recorder<Int>?
    do {
      let recorder = Recorder<Int>()
      recorder.onNewState = { _ in calls += 1 }
      store.subscribe(recorder) { $0.select(\.count) }
      weakRecorder = recorder
    }
    #expect(weakRecorder == nil)  // the store does not keep it alive
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(calls == 1)
  }

  /// A step that skips repeats keeps the last value it selected; ending the subscription
  /// releases it, for a `select` followed by a filter and for a filter alone.
  @Test func theValueAStepKeepsGoesWithItsSubscription() {
    let store = makeTagStore()
    weak var firstTag: Tag?
    firstTag = store.state.tag
    let selecting = TagCounter()
    store.subscribe(selecting) { $0.select(\.tag).skip(when: { $0 === $1 }) }
    var seen = 0
    let token = store.subscribe(
      { $0.skip(when: { $0.tag === $1.tag }) }, receive: { _ in seen += 1 })
    store.unsubscribe(selecting)
    token.cancel()
    store.dispatch(NewTag())  // the store's state no longer holds the first tag
    #expect(seen == 1 && selecting.count == 1)
    #expect(firstTag == nil)
  }

  /// A `select` of the state keeps the value it selected last in its entry, which stays in the
  /// registry until it compacts; ending the subscription releases the value at once, for a
  /// subscriber object, a closure subscription and a subscriber of the whole state.
  @Test func theValueASelectKeepsGoesWithItsSubscription() {
    let store = makeTagStore()
    weak var firstTag: Tag?
    firstTag = store.state.tag
    let selecting = TagCounter()
    store.subscribe(selecting) { $0.select(\.tag) }
    let whole = WholeTagState()
    store.subscribe(whole)
    var seen = 0
    let token = store.subscribe({ $0.select(\.tag) }, receive: { _ in seen += 1 })
    #expect(seen == 1 && selecting.count == 1 && whole.count == 1)
    store.unsubscribe(selecting)
    store.unsubscribe(whole)
    token.cancel()
    store.dispatch(NewTag())  // the store's state no longer holds the first tag
    #expect(seen == 1 && selecting.count == 1 && whole.count == 1)
    #expect(firstTag == nil)
  }

  @Test func subscribingAgainReplacesTheSubscription() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.subscribe(recorder) { $0.select { $0.count * 100 } }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 0, 100])
  }

  @Test func unsubscribeStopsDeliveries() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.unsubscribe(recorder)
    store.unsubscribe(recorder)  // a second call does nothing
    store.dispatch(Increment())
    #expect(recorder.values == [0])
  }

  @Test func c10UnsubscribeFromDeinit() {
    let store = makeStore()
    let log = Log<Int>()
    do {
      let view = SelfUnsubscribingView(store: store, log: log)
      view.appear()
      store.dispatch(Increment())
    }
    store.dispatch(Increment())
    #expect(log.elements == [0, 1])
  }

  @Test func closureSubscriptionDeliversUntilCancelled() {
    let store = makeStore()
    var values: [Int] = []
    let token = store.subscribe({ $0.select(\.count) }, receive: { values.append($0) })
    store.dispatch(Increment())
    token.cancel()
    token.cancel()
    store.dispatch(Increment())
    #expect(values == [0, 1])
  }

  /// C12: a token holds its store's engine weakly; kept after the store, it keeps nothing of it
  /// alive (the reducer's captures are released), and cancelling or releasing it does nothing.
  @Test func aTokenDoesNotKeepItsStoreAlive() {
    weak var capture: Capture?
    var values: [Int] = []
    var token: SubscriptionToken?
    do {
      let captured = Capture()
      capture = captured
      let store = makeStore(capturing: captured)
      token = store.subscribe({ $0.select(\.count) }, receive: { values.append($0) })
      store.dispatch(Increment())
    }
    #expect(capture == nil)
    token?.cancel()
    token = nil
    #expect(values == [0, 1])
  }

  @Test func releasingTheTokenUnsubscribes() {
    let store = makeStore()
    var values: [Int] = []
    var token: SubscriptionToken? = store.subscribe(
      { $0.select(\.count) }, receive: { values.append($0) })
    store.dispatch(Increment())
    withExtendedLifetime(token) {}
    token = nil
    store.dispatch(Increment())
    #expect(values == [0, 1])
  }

  @Test func cancellingATokenDuringARoundTakesEffectAtOnce() {
    let store = makeStore()
    var second: [Int] = []
    var secondToken: SubscriptionToken?
    let first = store.subscribe(
      { $0.select(\.count) },
      receive: { count in if count == 1 { secondToken?.cancel() } })
    secondToken = store.subscribe({ $0.select(\.count) }, receive: { second.append($0) })
    store.dispatch(Increment())
    #expect(second == [0])
    withExtendedLifetime(first) {}
  }

  @Test func aSubscriberCanUnsubscribeItselfFromNewState() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    recorder.onNewState = { [weak recorder] count in
      if count == 1, let recorder { store.unsubscribe(recorder) }
    }
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }

  @Test func aSubscriberAddedDuringARoundStartsFromTheCurrentState() {
    let store = makeStore()
    let first = Recorder<Int>()
    let late = Recorder<Int>()
    first.onNewState = { count in
      if count == 1 { store.subscribe(late) { $0.select(\.count) } }
    }
    store.subscribe(first) { $0.select(\.count) }
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(first.values == [0, 1, 2])
    #expect(late.values == [1, 2])  // the current state at once, then each later one, once
  }

  @Test func manySubscribersComeAndGo() {
    let store = makeStore()
    let keep = (0..<10).map { _ in Recorder<Int>() }
    for recorder in keep { store.subscribe(recorder) { $0.select(\.count) } }
    for _ in 0..<200 {
      let transient = Recorder<Int>()
      store.subscribe(transient) { $0.select(\.count) }
      store.unsubscribe(transient)
    }
    store.dispatch(Increment())
    #expect(keep.allSatisfy { $0.values == [0, 1] })
  }

  /// A view that appears and goes while the store notifies: each subscribe comes after a round,
  /// which the main loop's copy of the registry must not miss (and must not make O(n), which
  /// `gate_e_subscribe_between_rounds` in Benchmarks/ checks).
  /// Removal counts a subscription out at once and its entry leaves the registry by the next
  /// compaction, for subscriptions made at any version of the state and of either form: the
  /// registry's memory follows the subscriptions that stand.
  @Test func removedSubscriptionsLeaveTheRegistry() {
    let store = makeStore()
    store.dispatch(Increment())
    let recorders = (0..<100).map { _ in Recorder<Int>() }
    var tokens: [SubscriptionToken] = []
    for recorder in recorders {
      store.subscribe(recorder) { $0.select(\.count) }
      tokens.append(store.subscribe({ $0.select(\.count) }, receive: { _ in }))
      store.dispatch(Increment())
    }
    #expect(store._subscriptionCounts == (standing: 200, registered: 200))
    for (recorder, token) in zip(recorders, tokens) {
      store.unsubscribe(recorder)
      token.cancel()
    }
    let counts = store._subscriptionCounts
    #expect(counts.standing == 0)
    #expect(counts.registered < 32, "fewer removed entries than a compaction waits for")
  }

  /// Subscribers subscribe, subscribe again and unsubscribe in a random order (seeded): after
  /// each step the store counts exactly the subscribed ones and delivers to them alone, once,
  /// whatever the collisions and removals in its table of subscribers.
  @Test func subscribersFoundByIdentityInAnyOrder() {
    let store = makeStore()
    let recorders = (0..<300).map { _ in Recorder<Int>() }
    var subscribed = Set<Int>()
    var random = SeededRandom(seed: 40)
    for step in 1...1_500 {
      let index = random.next(upTo: recorders.count)
      if subscribed.contains(index), random.next(upTo: 3) == 0 {
        store.subscribe(recorders[index]) { $0.select(\.count) }  // replaces
      } else if subscribed.remove(index) != nil {
        store.unsubscribe(recorders[index])
      } else {
        store.subscribe(recorders[index]) { $0.select(\.count) }
        subscribed.insert(index)
      }
      if step % 100 == 0 {
        let before = recorders.map(\.values.count)
        store.dispatch(Increment())
        let count = store.state.count
        let received = recorders.indices.filter { recorders[$0].values.count != before[$0] }
        #expect(Set(received) == subscribed, "step \(step)")
        #expect(received.allSatisfy { recorders[$0].values.suffix(2) == [count - 1, count] })
        #expect(store._subscriptionCounts.standing == subscribed.count, "step \(step)")
      }
    }
    #expect(subscribed.count > 50)
  }

  /// Tokens are cancelled from four threads, each dispatching too, while the main queue runs
  /// rounds that read the same subscriptions: all are counted out and leave the registry (and
  /// ThreadSanitizer sees the cancel and the rounds meet only through atomics and the lock).
  @Test func tokensCancelledFromOtherThreadsWhileRoundsRun() async {
    let store = makeStore()
    let delivered = Log<Int>()
    let tokens = (0..<200).map { index in
      store.subscribe({ $0.select(\.count) }, receive: { _ in delivered.append(index) })
    }
    await runOnThreads(4) { thread in
      for index in stride(from: thread, to: tokens.count, by: 4) {
        tokens[index].cancel()
        store.dispatch(Increment())
      }
    }
    await waitUntil { store._subscriptionCounts.standing == 0 && store.state.count == 200 }
    #expect(store._subscriptionCounts.standing == 0)
    #expect(store._subscriptionCounts.registered < 32)
    let afterCancel = delivered.elements.count
    store.dispatch(Increment())
    #expect(delivered.elements.count == afterCancel, "no cancelled token is called again")
  }

  @Test func subscribersComeAndGoBetweenRounds() {
    let store = makeStore()
    let keep = (0..<10).map { _ in Recorder<Int>() }
    for recorder in keep { store.subscribe(recorder) { $0.select(\.count) } }
    var transients: [Recorder<Int>] = []
    for round in 0..<100 {
      let transient = Recorder<Int>()
      store.subscribe(transient) { $0.select(\.count) }
      store.dispatch(Increment())
      store.unsubscribe(transient)
      store.dispatch(Increment())
      #expect(transient.values == [2 * round, 2 * round + 1])
      transients.append(transient)
    }
    #expect(keep.allSatisfy { $0.values == Array(0...200) })
    #expect(transients.allSatisfy { $0.values.count == 2 })
  }
}

/// A view that unsubscribes itself in `deinit`, as a view controller does.
@MainActor
private final class SelfUnsubscribingView: StoreSubscriber {
  let store: Store<TestState>
  let log: Log<Int>

  init(store: Store<TestState>, log: Log<Int>) {
    self.store = store
    self.log = log
  }

  func appear() {
    store.subscribe(self) { $0.select(\.count) }
  }

  deinit {
    store.unsubscribe(self)
  }

  func newState(state: Int) {
    log.append(state)
  }
}

private final class Tag: Sendable {}
private struct TagState: Sendable { var tag = Tag() }
private struct NewTag: Action {}

/// A store whose `NewTag` replaces the tag, and that delivers every state (no automatic
/// skip-repeats).
@MainActor
private func makeTagStore() -> Store<TagState> {
  Store<TagState>(
    reducer: { action, state in
      var state = state ?? TagState()
      if action is NewTag { state.tag = Tag() }
      return state
    }, state: nil, automaticallySkipsRepeats: false)
}

/// Counts what it receives and keeps none of it.
private final class TagCounter: StoreSubscriber {
  var count = 0
  func newState(state: Tag) { count += 1 }
}

/// Counts the whole states it receives and keeps none of them.
private final class WholeTagState: StoreSubscriber {
  var count = 0
  func newState(state: TagState) { count += 1 }
}
