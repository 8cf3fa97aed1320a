// What Structuring a large app takes as given: a profile feature, and an older reducer of the
// whole state.
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
