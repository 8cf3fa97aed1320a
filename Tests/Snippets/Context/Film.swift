// The films app's `Film` and its service, as Getting started defines them, a film to test with,
// a stub service for tests, and ReSwift's blocking load.
import Dispatch

/// A film, known by its episode as in the example (`Examples/Films`).
nonisolated struct Film: Codable, Equatable, Identifiable, Sendable {
  let id: Int
  var title: String
}

let hope = Film(id: 4, title: "A New Hope")

protocol FilmService: Sendable {
  func films() async throws -> [Film]
}

struct BundledFilmService: FilmService {
  func films() async throws -> [Film] { [hope] }
}

/// What tests put in the environment instead of the live service.
struct StubFilmService: FilmService {
  var films: [Film]
  func films() async throws -> [Film] { films }
}

/// A blocking load, as in ReSwift's tutorial.
func loadFilms() -> [Film] { [hope] }
