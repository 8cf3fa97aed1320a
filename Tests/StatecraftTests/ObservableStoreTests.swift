import Observation
import Statecraft
import StatecraftObservation
import StatecraftTestSupport
import Testing

@MainActor
@Suite(.catchesHangs) struct ObservableStoreTests {
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @Test func readsTheStateByKeyPath() {
    let store = makeStore()
    let model = ObservableStore(store)
    #expect(model.count == 0)
    model.dispatch(Increment())
    #expect(model.count == 1)
    #expect(model.state.count == 1)
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @Test func aReaderIsInvalidatedOnlyWhenWhatItReadChanged() {
    let store = makeStore()
    let model = ObservableStore(store)
    let changes = Log<String>()
    withObservationTracking {
      _ = model.count
    } onChange: {
      changes.append("count")
    }
    store.dispatch(SetLabel(label: "unrelated"))
    #expect(changes.elements.isEmpty)
    store.dispatch(Increment())
    #expect(changes.elements == ["count"])
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @Test func readingTheWholeStateTracksEveryChange() {
    let store = makeStore()
    let model = ObservableStore(store)
    let changes = Log<String>()
    withObservationTracking {
      _ = model.state
    } onChange: {
      changes.append("state")
    }
    store.dispatch(SetLabel(label: "anything"))
    #expect(changes.elements == ["state"])
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @Test func changesFromOtherThreadsArriveOnTheMainActor() async {
    let store = makeStore()
    let model = ObservableStore(store)
    await Task.detached { store.dispatch(Add(amount: 3)) }.value
    await waitUntil { model.count == 3 }
    #expect(model.count == 3)
  }
}
