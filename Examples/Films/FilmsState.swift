import Statecraft
import StatecraftEntities
import StatecraftTools

nonisolated struct Film: Codable, Equatable, Identifiable, Sendable {
  let title: String
  let episodeID: Int
  let director: String
  let releaseDate: String

  enum CodingKeys: String, CodingKey {
    case title
    case episodeID = "episode_id"
    case director
    case releaseDate = "release_date"
  }

  /// A film is known by its episode: the list shows one film per episode.
  var id: Int { episodeID }
}

struct AppState: Equatable, Sendable {
  /// The films by id, in the order the thunk gives them (by episode).
  ///
  /// A film is found and changed in place by its id in O(1), and a test's diff shows a changed
  /// film under its id.
  var films = EntityCollection<Film.ID, Film>()
  var isLoading = false
  var error: String?
  /// Shows only the films whose title contains it; empty shows all.
  var query = ""
}

struct SetQuery: Action, Codable, Equatable {
  let query: String
}

/// The films the list shows: computed once per change of the films or the query, and shared
/// by every subscriber (Selecting state).
let visibleFilms = createSelector(\AppState.films, \AppState.query) { films, query in
  films.filter { query.isEmpty || $0.title.localizedCaseInsensitiveContains(query) }
}

/// Loads the films and hands them to the store through the thunk's lifecycle actions:
/// `pending` sets `isLoading`, `fulfilled` stores the films, `rejected` stores the error.
func fetchFilms() -> AsyncThunk<AppState, [Film]> {
  AsyncThunk("films/fetch") { context in
    let films = try await context.environment[FilmServiceKey.self].films()
    return films.sorted { $0.episodeID < $1.episodeID }
  }
}

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if let event = fetchFilms().lifecycle(of: action) {
    state.isLoading = event.isPending
    if event.isPending { state.error = nil }
    if let films = event.value { state.films.setAll(films) }
    if let error = event.error { state.error = "\(error)" }
  }
  if let action = action as? SetQuery { state.query = action.query }
  return state
}

/// The actions a recording of the app can replay.
var filmActions: ActionRegistry {
  var registry = ActionRegistry()
  registry.register(SetQuery.self)
  return registry
}
