// swift-format-ignore-file
// (The verifier reads each expected diagnostic at the end of the line it is about.)
// Subscribing from synchronous nonisolated code: warnings, as the API is `@preconcurrency`.
import Statecraft
import XCTest

final class SynchronousTests: XCTestCase {
  // expected-note@+1 {{add '@MainActor' to make instance method 'testSubscribe()' part of global actor 'MainActor'}}
  func testSubscribe() {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    let subscriber = CountSubscriber()
    store.subscribe(subscriber) { $0.select(\.count) }  // expected-warning {{call to main actor-isolated instance method 'subscribe(_:transform:)' in a synchronous nonisolated context}}
    store.unsubscribe(subscriber)
  }
}

/// A helper generic over `StoreType`, as ReSwift apps write them.
func subscribeCounts<S: StoreType>(_ store: S, _ subscriber: CountSubscriber) // expected-note {{add '@MainActor' to make global function 'subscribeCounts' part of global actor 'MainActor'}}
where S.State == AppState {
  store.subscribe(subscriber) { $0.select(\.count) }  // expected-warning {{call to main actor-isolated instance method 'subscribe(_:transform:)' in a synchronous nonisolated context}}
}
