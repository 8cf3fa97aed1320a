import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.catchesHangs) struct PulseTests {
  struct Screen: Equatable, Sendable {
    var alert = Pulse<String>()
    var count = 0
  }

  enum ScreenAction: Action {
    case alert(String)
    case tick
  }

  static let reducer: InPlaceReducer<Screen> = { state, action in
    switch action as? ScreenAction {
    case .alert(let message): state.alert.emit(message)
    case .tick: state.count += 1
    case nil: break
    }
  }

  @Test func theSameMessageTwiceIsTwoEvents() {
    let store = Store(reducer: Self.reducer, state: Screen())
    let recorder = RecordingSubscriber<PulseEvent<String>>()
    store.subscribe(recorder) { $0.pulses(\.alert) }
    store.dispatch(ScreenAction.alert("Saved"))
    store.dispatch(ScreenAction.tick)
    store.dispatch(ScreenAction.alert("Saved"))
    #expect(recorder.values.map(\.value) == ["Saved", "Saved"])
  }

  @Test func aLateSubscriberDoesNotSeeEarlierEvents() {
    let store = Store(reducer: Self.reducer, state: Screen())
    store.dispatch(ScreenAction.alert("before"))
    let recorder = RecordingSubscriber<PulseEvent<String>>()
    store.subscribe(recorder) { $0.pulses(\.alert) }
    #expect(recorder.values.isEmpty)
    store.dispatch(ScreenAction.alert("after"))
    #expect(recorder.values.map(\.value) == ["after"])
  }

  @Test func subscribingAgainDoesNotRepeatEvents() {
    let store = Store(reducer: Self.reducer, state: Screen())
    let recorder = RecordingSubscriber<PulseEvent<String>>()
    store.subscribe(recorder) { $0.pulses(\.alert) }
    store.dispatch(ScreenAction.alert("once"))
    store.unsubscribe(recorder)
    store.subscribe(recorder) { $0.pulses(\.alert) }  // the view came back on screen
    store.dispatch(ScreenAction.tick)
    #expect(recorder.values.map(\.value) == ["once"])
  }

  @Test func eventsEmittedInOneBatchAreAllDelivered() {
    let store = Store(reducer: Self.reducer, state: Screen())
    let recorder = RecordingSubscriber<PulseEvent<String>>()
    store.subscribe(recorder) { $0.pulses(\.alert) }
    store.batch {
      store.dispatch(ScreenAction.alert("one"))
      store.dispatch(ScreenAction.alert("two"))
      store.dispatch(ScreenAction.alert("three"))
    }
    #expect(recorder.values.map(\.value) == ["one", "two", "three"])
  }

  @Test func eventsFromOtherThreadsArriveInOrder() async {
    let store = Store(reducer: Self.reducer, state: Screen())
    let recorder = RecordingSubscriber<PulseEvent<String>>()
    store.subscribe(recorder) { $0.pulses(\.alert) }
    await Task.detached {
      for index in 0..<20 { store.dispatch(ScreenAction.alert("\(index)")) }
    }.value
    await recorder.waitForValues(count: 20)
    #expect(recorder.values.map(\.value) == (0..<20).map { "\($0)" })
  }

  @Test func asyncSequenceLosesNoEvent() async {
    let store = Store(reducer: Self.reducer, state: Screen())
    var iterator = store.pulses(\.alert).makeAsyncIterator()
    for index in 0..<50 { store.dispatch(ScreenAction.alert("\(index)")) }
    var received: [String] = []
    while received.count < 50, let message = await iterator.next() { received.append(message) }
    #expect(received == (0..<50).map { "\($0)" })
  }

  @Test func thePulseKeepsOnlyTheRecentEvents() {
    var pulse = Pulse<Int>()
    for value in 0..<100 { pulse.emit(value) }
    #expect(pulse.events.count == Pulse<Int>.capacity)
    #expect(pulse.latest == 99)
    #expect(pulse.latestID == 100)
  }

  @Test func theSequenceSubscribesWhenIterationStarts() async {
    let store = Store(reducer: Self.reducer, state: Screen())
    let alerts = store.pulses(\.alert)
    store.dispatch(ScreenAction.alert("before iterating"))
    var iterator = alerts.makeAsyncIterator()
    store.dispatch(ScreenAction.alert("after"))
    #expect(await iterator.next() == "after")
  }

}
