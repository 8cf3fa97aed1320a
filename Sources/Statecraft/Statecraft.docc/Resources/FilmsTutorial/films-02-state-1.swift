import Statecraft

struct Film: Codable, Equatable, Sendable {
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
}
