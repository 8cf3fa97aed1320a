import Statecraft

struct CounterState: Equatable, Sendable {
  var count = 0
  var label = ""
}

struct Increment: Action {}
struct SetLabel: Action { let label: String }

func counterReducer(action: Action, state: CounterState?) -> CounterState {
  var state = state ?? CounterState()
  switch action {
  case is Increment: state.count += 1
  case let action as SetLabel: state.label = action.label
  default: break
  }
  return state
}
