import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.catchesHangs) struct BatchTests {
  @Test func subscribersAreNotifiedOnceWithTheFinalState() {
    let store = makeStore()
    let recorder = RecordingSubscriber<TestState>()
    store.subscribe(recorder)
    store.batch {
      store.dispatch(Increment())
      store.dispatch(Increment())
      store.dispatch(SetLabel(label: "done"))
    }
    #expect(recorder.values.map(\.count) == [0, 2])
    #expect(recorder.values.last?.label == "done")
  }

  @Test func batchesGoThroughMiddlewareInOrder() {
    let log = Log<String>()
    let spy = typeLogger(log)
    let store = makeStore(middleware: [spy])
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.batch {
      store.dispatch(Increment())
      store.dispatch(Add(amount: 5))
    }
    #expect(log.elements == ["Increment", "Add"])
    #expect(recorder.values == [0, 6])
  }

  @Test func aNestedBatchJoinsTheOuterOne() {
    let store = makeStore()
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.batch {
      store.dispatch(Increment())
      store.batch { store.dispatch(Increment()) }
      store.dispatch(Increment())
    }
    #expect(recorder.values == [0, 3])
  }

  @Test func aBatchThatChangesNothingNotifiesNoOne() {
    let store = makeStore()
    let recorder = RecordingSubscriber<TestState>()
    store.subscribe(recorder)
    store.batch {}
    store.batch { store.dispatch(Add(amount: 0)) }  // reduced, but the state is equal
    #expect(recorder.values.count == 1)
  }

  @Test func everyActionIsStillReducedAndObserved() async {
    let store = makeStore()
    var iterator = store.actions().makeAsyncIterator()
    store.batch {
      for _ in 0..<10 { store.dispatch(Increment()) }
    }
    #expect(store.state.count == 10)
    var observed = 0
    while observed < 10, await iterator.next() != nil { observed += 1 }
    #expect(observed == 10)
  }
}
