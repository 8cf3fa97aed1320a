import Statecraft
import StatecraftTestSupport
import Testing

@MainActor
@Suite(.catchesHangs) struct AsyncSequenceTests {
  @Test func statesStartWithTheCurrentValueAndSkipRepeats() async {
    let store = makeStore()
    store.dispatch(Add(amount: 5))
    var iterator = store.states({ $0.select(\.count) }).makeAsyncIterator()
    #expect(await iterator.next() == 5)
    store.dispatch(SetLabel(label: "unrelated"))
    store.dispatch(Increment())
    #expect(await iterator.next() == 6)
  }

  @Test func aSlowConsumerGetsTheLatestValue() async {
    let store = makeStore()
    var iterator = store.states({ $0.select(\.count) }).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    for _ in 0..<100 { store.dispatch(Increment()) }
    #expect(await iterator.next() == 100)
  }

  @Test func statesWithASubscription() async {
    let store = makeStore()
    var iterator = store.states { $0.select(\.label).only(when: { $1.count > $0.count }) }
      .makeAsyncIterator()
    #expect(await iterator.next() == "")
    store.dispatch(SetLabel(label: "ab"))
    store.dispatch(SetLabel(label: "a"))
    store.dispatch(SetLabel(label: "abc"))
    #expect(await iterator.next() == "abc")
  }

  @Test func statesEndWhenTheTaskIsCancelled() async {
    let store = makeStore()
    let seen = Log<Int>()
    let consumer = Task {
      for await count in store.states({ $0.select(\.count) }) { seen.append(count) }
      return "ended"
    }
    await waitUntil { !seen.elements.isEmpty }
    consumer.cancel()
    #expect(await consumer.value == "ended")
  }

  @Test func statesEndWhenTheStoreIsReleased() async {
    var store: Store<TestState>? = makeStore()
    let states = store?.states({ $0.select(\.count) })
    let seen = Log<Int>()
    let consumer = Task {
      guard let states else { return "no sequence" }
      for await count in states { seen.append(count) }
      return "ended"
    }
    await waitUntil { !seen.elements.isEmpty }
    store = nil
    #expect(await consumer.value == "ended")
  }

  @Test func actionsEndWhenTheStoreIsReleased() async {
    var store: Store<TestState>? = makeStore()
    var iterator = store?.actions().makeAsyncIterator()
    store?.dispatch(Increment())
    #expect(await iterator?.next() is Increment)
    store = nil
    #expect(await iterator?.next() == nil)
  }

  @Test func actionsArriveInReductionOrderAndNoneIsDropped() async {
    let store = makeStore()
    // Observation starts when the iterator is made, before any of these dispatches.
    var iterator = store.actions().makeAsyncIterator()
    await runOnThreads(4) { thread in
      for sequence in 0..<1_000 { store.dispatch(Tagged(thread: thread, sequence: sequence)) }
    }
    var tags: [Int] = []
    while tags.count < 4_000, let action = await iterator.next() {
      if let action = action as? Tagged {
        tags.append(action.thread * 1_000_000 + action.sequence)
      }
    }
    #expect(tags == store.state.items)
  }
}
