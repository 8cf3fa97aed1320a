// Getting started reaches the films service through this key; Async work shows it.
enum FilmServiceKey: ThunkEnvironmentKey {
  static let defaultValue: any FilmService = BundledFilmService()
}
