// What the documentation's snippets take as given: the films app's `Film` and its service, a
// film to test with, and on Linux the little of UIKit the view controllers use.
import Dispatch

/// A film, known by its episode as in the example (`Examples/Films`).
struct Film: Codable, Equatable, Identifiable, Sendable {
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

#if !canImport(UIKit)
  @MainActor class UITableView {
    func reloadData() {}
  }

  @MainActor class UITableViewController {
    let tableView = UITableView()
    func viewDidLoad() {}
  }
#endif
