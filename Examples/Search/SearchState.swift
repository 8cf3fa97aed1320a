import Foundation
import Statecraft

struct SearchState: Equatable, Sendable {
  var query = ""
  var results: [String] = []
  var isSearching = false
}

enum SearchAction: Action {
  case started(String)
  case finished(query: String, results: [String])
}

func searchReducer(action: Action, state: SearchState?) -> SearchState {
  var state = state ?? SearchState()
  switch action as? SearchAction {
  case .started(let query):
    state.query = query
    state.isSearching = true
  case .finished(let query, let results) where query == state.query:
    state.results = results
    state.isSearching = false
  default:
    break
  }
  return state
}

/// The names to search, from the file bundled with the example.
protocol CharacterDirectory: Sendable {
  func names() throws -> [String]
}

struct BundledCharacters: CharacterDirectory {
  func names() throws -> [String] {
    guard let url = Bundle.module.url(forResource: "characters", withExtension: "txt") else {
      return []
    }
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
  }
}

enum DirectoryKey: ThunkEnvironmentKey {
  static let defaultValue: any CharacterDirectory = BundledCharacters()
}

enum DebounceKey: ThunkEnvironmentKey {
  static let defaultValue: Interval = .milliseconds(250)
}

/// Type-ahead search: waits for typing to pause, and a newer query cancels this one, as in
/// ReactorKit's GitHub search example.
func search(_ query: String) -> Thunk<SearchState> {
  Thunk(id: "search", policy: .cancelPrevious) { context in
    context.dispatch(SearchAction.started(query))
    try await context.clock.sleep(for: context.environment[DebounceKey.self])
    let needle = query.lowercased()
    let results = try context.environment[DirectoryKey.self].names()
      .filter { needle.isEmpty == false && $0.lowercased().contains(needle) }
    try context.checkCancellation()
    context.dispatch(SearchAction.finished(query: query, results: results))
  }
}
