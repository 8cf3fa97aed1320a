// What Inspecting a running app takes as given: an app's state, reducer and action registry.
import Foundation

struct Session: Codable, Equatable, Sendable {
  var user = "guest"
  var token = ""
}

struct AppState: Codable, Equatable, Sendable {
  var films: [Film] = []
  var session = Session()
}

enum FilmsAction: Action, Codable, Equatable {
  case watched(Int)
}

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if case .watched(let index) = action as? FilmsAction, state.films.indices.contains(index) {
    state.films.remove(at: index)
  }
  return state
}

var appActions: ActionRegistry {
  var registry = ActionRegistry()
  registry.register(FilmsAction.self)
  return registry
}

let recordingURL = FileManager.default.temporaryDirectory.appendingPathComponent("session.jsonl")
