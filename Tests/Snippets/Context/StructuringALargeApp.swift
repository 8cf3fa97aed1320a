// What Structuring a large app takes as given: the films feature's state, a profile feature,
// and an older reducer of the whole state.
extension Film: Identifiable {
  var id: String { title }
}

struct FilmsState: Equatable {
  var films: [Film] = []
  var selection: Film.ID?
}

struct Profile: Equatable {
  var name = ""
}

enum ProfileAction: Action {
  case save
}

func profileReducer(state: inout Profile, action: ProfileAction) {}

func legacyReducer(action: Action, state: AppState?) -> AppState {
  state ?? AppState()
}
