// The final code of the Getting started article, in a target with default main-actor isolation:
// the films in an `EntityCollection`, a store, a subscriber, an `AsyncThunk` whose lifecycle the
// reducer handles, and the reducer's test. Names carry the `GettingStarted` prefix beside the
// other fixtures; otherwise the code is the article's, with a plain class for the view
// controller (UIKit is not there on Linux). `Film` is a `nonisolated struct`, as the article
// says: with a main-actor conformance to `Identifiable` it cannot be an `EntityCollection`'s
// element, which is `Sendable`.
import Statecraft
import StatecraftEntities

nonisolated struct GettingStartedFilm: Identifiable, Codable, Equatable, Sendable {
  let id: Int
  var title: String
}

struct GettingStartedState: Equatable {
  var films = EntityCollection<GettingStartedFilm.ID, GettingStartedFilm>()
  var isLoading = false
}

struct GettingStartedSetFilms: Action { let films: [GettingStartedFilm] }
struct GettingStartedSetLoading: Action { let isLoading: Bool }

func gettingStartedReducer(action: Action, state: GettingStartedState?) -> GettingStartedState {
  var state = state ?? GettingStartedState()
  gettingStartedReduceFetch(action, into: &state)
  switch action {
  case let action as GettingStartedSetFilms: state.films.setAll(action.films)
  case let action as GettingStartedSetLoading: state.isLoading = action.isLoading
  default: break
  }
  return state
}

// AppDelegate.swift
nonisolated let gettingStartedStore = Store<GettingStartedState>(
  reducer: gettingStartedReducer, state: nil)

final class GettingStartedFilmsViewController: StoreSubscriber {
  private var films = EntityCollection<GettingStartedFilm.ID, GettingStartedFilm>()

  func viewDidLoad() {
    gettingStartedStore.subscribe(self) { $0.select(\.films) }
  }

  deinit { gettingStartedStore.unsubscribe(self) }

  func newState(state films: EntityCollection<GettingStartedFilm.ID, GettingStartedFilm>) {
    self.films = films
  }
}

protocol GettingStartedFilmService: Sendable {
  func films() async throws -> [GettingStartedFilm]
}

struct GettingStartedBundledFilmService: GettingStartedFilmService {
  func films() async throws -> [GettingStartedFilm] {
    [GettingStartedFilm(id: 4, title: "A New Hope")]
  }
}

enum GettingStartedFilmServiceKey: ThunkEnvironmentKey {
  static let defaultValue: any GettingStartedFilmService = GettingStartedBundledFilmService()
}

func gettingStartedFetchFilms() -> AsyncThunk<GettingStartedState, [GettingStartedFilm]> {
  AsyncThunk("films/fetch") { context in
    try await context.environment[GettingStartedFilmServiceKey.self].films()
  }
}

func gettingStartedReduceFetch(_ action: Action, into state: inout GettingStartedState) {
  guard let event = gettingStartedFetchFilms().lifecycle(of: action) else { return }
  switch event.phase {
  case .pending: state.isLoading = true
  case .fulfilled(let films):
    state.films.setAll(films)
    state.isLoading = false
  case .rejected, .cancelled: state.isLoading = false
  }
}

func gettingStartedDispatch() {
  gettingStartedStore.dispatch(GettingStartedSetFilms(films: []))
  gettingStartedStore.dispatch(gettingStartedFetchFilms())
}

/// The article's reducer test, as a function: this target is not a test target.
func gettingStartedSetFilmsReplacesTheList() -> Bool {
  let hope = GettingStartedFilm(id: 4, title: "A New Hope")
  let state = gettingStartedReducer(
    action: GettingStartedSetFilms(films: [hope]), state: GettingStartedState())
  return state.films == [hope]
}
