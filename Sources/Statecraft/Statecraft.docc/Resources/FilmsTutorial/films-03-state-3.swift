import Statecraft
import StatecraftEntities

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
  /// The films by id, in the order they are added.
  ///
  /// A film is found and changed in place by its id in O(1), and a test's diff shows a changed
  /// film under its id.
  var films = EntityCollection<Film.ID, Film>()
  var isLoading = false
  var error: String?
}

/// Loads the films and hands them to the store through the thunk's lifecycle actions:
/// `pending` sets `isLoading`, `fulfilled` stores the films, `rejected` stores the error.
func fetchFilms() -> AsyncThunk<AppState, [Film]> {
  AsyncThunk("films/fetch") { context in
    let films = try await context.environment[FilmServiceKey.self].films()
    return films.sorted { $0.episodeID < $1.episodeID }
  }
}
