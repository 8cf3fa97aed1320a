// Code a Swift 6 app writes with Statecraft. This target only has to compile, with no
// annotations: a global store, a reducer function, a main-actor view that subscribes, and
// dispatches from a background queue and a detached task.
import Dispatch
import Statecraft

public struct ClientState: Equatable, Sendable {
  public var films: [String] = []
  public var isLoading = false
}

public struct SetFilms: Action {
  public let films: [String]
}

public struct SetLoading: Action {
  public let isLoading: Bool
}

func clientReducer(action: Action, state: ClientState?) -> ClientState {
  var state = state ?? ClientState()
  switch action {
  case let action as SetFilms: state.films = action.films
  case let action as SetLoading: state.isLoading = action.isLoading
  default: break
  }
  return state
}

public let mainStore = Store<ClientState>(reducer: clientReducer, state: nil)

public func loadFilmsInBackground() {
  mainStore.dispatch(SetLoading(isLoading: true))
  DispatchQueue.global().async {
    mainStore.dispatch(SetFilms(films: ["A New Hope"]))
    mainStore.dispatch(SetLoading(isLoading: false))
  }
}

public func loadFilmsInTask() {
  Task.detached {
    mainStore.dispatch(SetFilms(films: ["The Empire Strikes Back"]))
  }
}

public let fetchFilms = Thunk<ClientState> { dispatch, getState in
  guard getState()?.isLoading == false else { return }
  dispatch(SetLoading(isLoading: true))
  DispatchQueue.global().async { dispatch(SetFilms(films: ["Return of the Jedi"])) }
}

/// Stands in for a `UIViewController`: main-actor isolated, as UIKit's are.
@MainActor
public final class FilmsViewController: StoreSubscriber {
  public private(set) var films: [String] = []

  public init() {}

  public func viewDidLoad() {
    mainStore.subscribe(self) { $0.select(\.films) }
    mainStore.dispatch(fetchFilms)
  }

  deinit {
    mainStore.unsubscribe(self)
  }

  public func newState(state: [String]) {
    films = state
  }
}
