// The key of the films service, which Getting started defines in its text.
enum FilmServiceKey: ThunkEnvironmentKey {
  static let defaultValue: any FilmService = BundledFilmService()
}
