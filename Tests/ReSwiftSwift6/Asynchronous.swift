// swift-format-ignore-file
// (The verifier reads each expected diagnostic at the end of the line it is about.)
// Subscribing from asynchronous nonisolated code is an error: mark the test `@MainActor`.
import Statecraft
import XCTest

final class AsynchronousTests: XCTestCase {
  func testSubscribeFromANonisolatedAsyncTest() async {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    let subscriber = CountSubscriber()
    store.subscribe(subscriber) { $0.select(\.count) }  // expected-error {{main actor-isolated instance method 'subscribe(_:transform:)' cannot be called from outside of the actor}}
  }

  @MainActor
  func testSubscribeFromAMainActorAsyncTest() async {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    let subscriber = CountSubscriber()
    store.subscribe(subscriber) { $0.select(\.count) }
    store.dispatch(Increase())
    XCTAssertEqual(subscriber.counts, [0, 1])
  }
}
