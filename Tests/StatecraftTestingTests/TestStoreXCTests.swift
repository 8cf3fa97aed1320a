import Statecraft
import StatecraftTesting
import XCTest

/// The helpers under XCTest: failures go to `XCTFail` at the caller's line when no Swift
/// Testing test is running.
///
/// Each test method is `@MainActor` and `async`, as the Migrating from ReSwift article advises: a
/// synchronous `@MainActor` method stops Linux test discovery.
final class TestStoreXCTests: XCTestCase {
  @MainActor
  func testAMainActorMethodSubscribesAndIsNotifiedBeforeDispatchReturns() async {
    let store = Store<CounterState>(reducer: counterReducer, state: CounterState())
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    XCTAssertEqual(recorder.values, [0, 1])
  }

  @MainActor
  func testSendAndReceiveUnderXCTest() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(Increment()) { $0.count = 1 }
    await store.send(Thunk<CounterState> { context in context.dispatch(SetLabel(label: "x")) })
    await store.receive(SetLabel.self) { $0.label = "x" }
    await store.finish()
  }
}
