import Statecraft
import StatecraftTesting
import XCTest

/// The helpers under XCTest: failures go to `XCTFail` at the caller's line when no Swift
/// Testing test is running.
final class TestStoreXCTests: XCTestCase {
  @MainActor
  func testSendAndReceiveUnderXCTest() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(Increment()) { $0.count = 1 }
    await store.send(Thunk<CounterState> { context in context.dispatch(SetLabel(label: "x")) })
    await store.receive(SetLabel.self) { $0.label = "x" }
    await store.finish()
  }
}
