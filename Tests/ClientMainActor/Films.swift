// The films app of ReSwift's tutorial as a new Xcode app target writes it, with default
// main-actor isolation: a global store in AppDelegate.swift, a view controller that subscribes
// in viewDidLoad and unsubscribes in deinit, a reducer function, an action creator, and loads
// that dispatch from DispatchQueue.global() and Task.detached. The only annotation is
// `nonisolated` on the global store.
import Dispatch
import Statecraft

struct Film: Equatable {
  var title: String
}

// As ReSwift's tutorial writes it, but for `StateType` (deprecated, as in ReSwift), which the
// extension below adopts in a deprecated context: members whose types are not marked `Sendable`.
struct FilmsState: Equatable {
  var films: [Film] = []
  var isLoading = false
}

// The tutorial's conformance, kept so that this fixture checks it still compiles; deprecated
// here so that the project's own build prints no warning.
@available(*, deprecated, message: "ReSwift's StateType, deprecated as in ReSwift")
extension FilmsState: StateType {}

struct SetFilms: Action {
  let films: [Film]
}

struct SetLoading: Action {
  let isLoading: Bool
}

// AppDelegate.swift
nonisolated let mainStore = Store<FilmsState>(reducer: filmsReducer, state: nil)

func filmsReducer(action: Action, state: FilmsState?) -> FilmsState {
  var state = state ?? FilmsState()
  switch action {
  case let action as SetFilms: state.films = action.films
  case let action as SetLoading: state.isLoading = action.isLoading
  default: break
  }
  return state
}

// `Sendable` because thunks call the service from other threads; the compiler's error names it.
protocol FilmService: Sendable {
  func films() async throws -> [Film]
}

struct BundledFilms: FilmService {
  func films() async throws -> [Film] { [Film(title: "A New Hope")] }
}

enum FilmServiceKey: ThunkEnvironmentKey {
  static let defaultValue: any FilmService = BundledFilms()
}

/// The async way: a thunk that reads its service from the environment.
let loadFilms = Thunk<FilmsState> { context in
  context.dispatch(SetLoading(isLoading: true))
  let films = try await context.environment[FilmServiceKey.self].films()
  context.dispatch(SetFilms(films: films))
  context.dispatch(SetLoading(isLoading: false))
}

@available(*, deprecated, message: "ReSwift's action creators, which Thunk replaces")
func fetchFilms() -> Store<FilmsState>.ActionCreator {
  { state, store in
    guard !state.isLoading else { return nil }
    // Dispatched before the work starts: an action the creator returned is dispatched after it
    // returns, when the work on the other thread may have finished already.
    store.dispatch(SetLoading(isLoading: true))
    DispatchQueue.global().async {
      store.dispatch(SetFilms(films: [Film(title: "A New Hope")]))
      store.dispatch(SetLoading(isLoading: false))
    }
    return nil
  }
}

final class FilmsViewController: StoreSubscriber {
  private(set) var titles: [String] = []

  func viewDidLoad() {
    mainStore.subscribe(self) { $0.select(\.films) }
  }

  deinit {
    mainStore.unsubscribe(self)
  }

  @available(*, deprecated, message: "dispatches a ReSwift action creator")
  func refresh() {
    mainStore.dispatch(fetchFilms())
  }

  func loadSequel() {
    Task.detached {
      mainStore.dispatch(SetFilms(films: [Film(title: "The Empire Strikes Back")]))
    }
  }

  func newState(state films: [Film]) {
    titles = films.map(\.title)
  }
}

/// Lets the tests drive the films app.
public final class MainActorFilmsClient {
  private let controller = FilmsViewController()

  public init() {
    controller.viewDidLoad()
  }

  public var titles: [String] { controller.titles }
  public var isLoading: Bool { mainStore.state.isLoading }

  @available(*, deprecated, message: "dispatches a ReSwift action creator")
  public func refresh() { controller.refresh() }
  public func loadSequel() { controller.loadSequel() }
}
