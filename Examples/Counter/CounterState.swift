import Statecraft

/// The whole app state.
struct AppState: Equatable {
  var count = 0
}

enum CounterAction: Action {
  case increment
  case decrement
  case reset
}

/// A plain function: unit tests call it directly.
func counterReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  switch action {
  case CounterAction.increment: state.count += 1
  case CounterAction.decrement: state.count -= 1
  case CounterAction.reset: state.count = 0
  default: break
  }
  return state
}
