// What the Coming from … articles take as given: a place to show films, a search API, and
// the search's actions.
func render(_ films: some Collection<Film>) {}

struct SearchAPI: Sendable {
  func search(_ query: String) async throws -> [Film] { [hope] }
}

let api = SearchAPI()

enum SearchAction: Action {
  case setLoading(Bool)
  case setResults([Film])
}
