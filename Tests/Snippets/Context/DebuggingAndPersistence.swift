// What Debugging and persistence takes as given: the films app with settings, where its files
// go, a migration, a state a bug report ended in, and a log.
import Foundation

struct Settings: Codable, Equatable, Sendable {
  var sortsByTitle = false
}

struct AppState: Codable, Equatable {
  var films: [Film] = []
  var isLoading = false
  var settings = Settings()
}

struct SetFilms: Action, Codable, Equatable { let films: [Film] }

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if let action = action as? SetFilms { state.films = action.films }
  return state
}

let sessionURL = FileManager.default.temporaryDirectory.appendingPathComponent("session.jsonl")
let settingsURL = FileManager.default.temporaryDirectory.appendingPathComponent("settings.json")
let reportedState = AppState(films: [hope])

let migrateSettingsV1: PersistenceMigration = { $0 }

func log(_ message: String) { print(message) }
