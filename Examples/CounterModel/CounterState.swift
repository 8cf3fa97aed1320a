import Statecraft
import StatecraftTools

/// The counter app's state, shared by `swift run counter` and `swift run inspect`.
public struct AppState: Codable, Equatable, Sendable {
  public var count = 0

  public init(count: Int = 0) {
    self.count = count
  }
}

public enum CounterAction: Action, Codable, Equatable {
  case increment
  case decrement
  case reset
}

/// A plain function: unit tests call it directly.
public func counterReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  switch action {
  case CounterAction.increment: state.count += 1
  case CounterAction.decrement: state.count -= 1
  case CounterAction.reset: state.count = 0
  default: break
  }
  return state
}

/// The counter's actions a recording can replay.
public var counterActions: ActionRegistry {
  var registry = ActionRegistry()
  registry.register(CounterAction.self)
  return registry
}
