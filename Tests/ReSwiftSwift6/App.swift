// What a ReSwift app declares; every probe here is type-checked together with this file.
import Statecraft

struct AppState: Sendable, Equatable {
  var count = 0
}

struct Increase: Action {}

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if action is Increase { state.count += 1 }
  return state
}

/// A plain subscriber class: conforming to `StoreSubscriber` makes it main-actor isolated.
final class CountSubscriber: StoreSubscriber {
  var counts: [Int] = []
  func newState(state: Int) { counts.append(state) }
}

final class StateSubscriber: StoreSubscriber {
  func newState(state: AppState) {}
}
