// The store, the thunks Async work writes and the view, which Testing tests.
let mainStore = Store<AppState>(reducer: appReducer, state: nil)

func fetchFilms() -> AsyncThunk<AppState, [Film]> {
  AsyncThunk("films/fetch") { context in
    try await context.environment[FilmServiceKey.self].films()
  }
}

let refreshFilms = Thunk<AppState> { dispatch, getState in
  guard getState()?.isLoading == false else { return }
  dispatch(SetLoading(isLoading: true))
  DispatchQueue.global().async {
    dispatch(SetFilms(films: loadFilms()))
    dispatch(SetLoading(isLoading: false))
  }
}

func searchFilms(_ query: String) -> Thunk<AppState> {
  Thunk(id: "search", policy: .debounce(.milliseconds(300))) { context in
    let films = try await context.environment[FilmServiceKey.self].films()
    context.dispatch(SetFilms(films: films.filter { $0.title.contains(query) }))
  }
}

/// The films app's view: it shows the error, or the titles.
@MainActor final class FilmsView: StoreSubscriber {
  private let store: Store<AppState>
  private(set) var text = ""

  init(store: Store<AppState>) { self.store = store }

  func appear() { store.subscribe(self) }

  func newState(state: AppState) {
    text = state.error ?? state.films.map(\.title).joined(separator: ", ")
  }
}
