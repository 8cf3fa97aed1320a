// What Migrating from ReSwift takes as given: the action its list example reduces.
struct RenameFilm: Action {
  let id: Film.ID
  let title: String
}
