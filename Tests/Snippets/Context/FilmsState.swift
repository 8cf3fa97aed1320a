// The films app's state, actions and reducer, as Getting started and Async work build them.
struct AppState: Equatable {
  var films = EntityCollection<Film.ID, Film>()
  var isLoading = false
  var error: String?
  var query = ""
}

struct SetFilms: Action, Equatable { let films: [Film] }
struct SetLoading: Action, Equatable { let isLoading: Bool }

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  switch action {
  case let action as SetFilms: state.films.setAll(action.films)
  case let action as SetLoading: state.isLoading = action.isLoading
  case let event as ThunkLifecycle<[Film]> where event.name == "films/fetch":
    state.isLoading = event.isPending
    if let films = event.value { state.films.setAll(films) }
    if let error = event.error { state.error = "\(error)" }
  default: break
  }
  return state
}
