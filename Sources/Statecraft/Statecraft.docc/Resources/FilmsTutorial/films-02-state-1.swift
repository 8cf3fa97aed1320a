import Statecraft

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
