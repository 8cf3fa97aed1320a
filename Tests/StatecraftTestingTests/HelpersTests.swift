import Dispatch
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@MainActor
@Suite(.catchesHangs) struct StoreStubTests {
  @Test func recordsActionsWithoutReducingThem() {
    let stub = StoreStub(state: CounterState(count: 5))
    stub.store.dispatch(Increment())
    stub.store.dispatch(SetLabel(label: "x"))
    #expect(stub.actions.count == 2)
    #expect(stub.actions.first is Increment)
    #expect(stub.store.state == CounterState(count: 5))
  }

  @Test func forcedStatesReachSubscribers() {
    let stub = StoreStub(state: CounterState())
    let recorder = RecordingSubscriber<Int>()
    stub.store.subscribe(recorder) { $0.select(\.count) }
    stub.setState(CounterState(count: 3))
    #expect(recorder.values == [0, 3])
    #expect(stub.actions.isEmpty)
  }
}

@MainActor
@Suite(.catchesHangs) struct ExpectThunkTests {
  @Test func checksDispatchesInOrderAgainstTheStatesGiven() async {
    let thunk = Thunk<CounterState> { dispatch, getState in
      if getState()?.count == 0 { dispatch(Increment()) }
      if getState()?.count == 10 { dispatch(SetLabel(label: "ten")) }
    }
    await ExpectThunk(thunk)
      .getsState(CounterState(count: 0))
      .dispatches(Increment.self)
      .getsState(CounterState(count: 10))
      .dispatches(SetLabel.self) { #expect($0.label == "ten") }
      .run()
  }

  @Test func asyncThunkWithAStubbedEnvironment() async {
    let thunk = Thunk<CounterState> { context in
      await Task.yield()
      context.dispatch(SetLabel(label: context.environment[NameKey.self]))
    }
    await ExpectThunk(thunk)
      .environment(NameKey.self, "stub")
      .getsState(CounterState())
      .dispatches(SetLabel.self) { #expect($0.label == "stub") }
      .run()
  }

  @Test func anUnexpectedDispatchFails() async {
    let thunk = Thunk<CounterState> { dispatch, _ in
      dispatch(Increment())
      dispatch(Increment())
    }
    await withKnownIssue {
      await ExpectThunk(thunk)
        .getsState(CounterState())
        .dispatches(Increment.self)
        .run()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("dispatched more than expected")
    }
  }

  @Test func aMissingDispatchFails() async {
    let thunk = Thunk<CounterState> { _, _ in }
    await withKnownIssue {
      await ExpectThunk(thunk)
        .getsState(CounterState())
        .dispatches(Increment.self)
        .run()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("dispatched only 0 action(s)")
    }
  }
}

@MainActor
@Suite(.catchesHangs) struct RecordingSubscriberTests {
  @Test func recordsEveryValueIncludingBackgroundCommits() async {
    let store = Store<CounterState>(reducer: counterReducer, state: CounterState())
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    await Task.detached { store.dispatch(Increment()) }.value
    #expect(await recorder.waitForValues(count: 2))
    #expect(recorder.values == [0, 1])
  }

  /// The main queue is held five times the wait's limit, and the delivery the wait expects is
  /// queued behind the wait's own wake-up: time the waiting task could not run does not count,
  /// so the wait sees the delivery instead of failing at its first look after the block.
  @Test func aWaitThatOtherWorkKeptFromRunningStillSeesWhatArrives() async {
    let store = Store<CounterState>(reducer: counterReducer, state: CounterState())
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    DispatchQueue.main.async {
      // Holding the main queue for real time is the point: the limit is in real time.
      usleep(100_000)
      // Its round is queued now, behind the wait's wake-up, which the block kept waiting.
      DispatchQueue.global().sync { store.dispatch(Increment()) }
    }
    #expect(await recorder.waitForValues(count: 2, timeout: .milliseconds(20)))
    #expect(recorder.values == [0, 1])
  }
}

private enum NameKey: ThunkEnvironmentKey {
  static let defaultValue = "real"
}
