// What the documentation's snippets take as given: the films app's `Film` and its service, a
// film to test with, and on Linux the little of UIKit the view controllers use.
import Dispatch

struct Film: Codable, Equatable, Sendable {
  var title: String
}

let hope = Film(title: "A New Hope")

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
