import Statecraft

/// Renders the film list the way a table view controller would: subscribed to the store,
/// redrawn on each change.
final class FilmsView: StoreSubscriber {
  private let store: Store<AppState>
  private let write: (String) -> Void
  /// Whether the view has shown the films or an error.
  private(set) var hasShownResult = false

  init(store: Store<AppState>, write: @escaping (String) -> Void = { print($0) }) {
    self.store = store
    self.write = write
  }

  func appear() {
    store.subscribe(self)
  }

  deinit {
    store.unsubscribe(self)
  }

  func newState(state: AppState) {
    if state.isLoading {
      write("Loading films…")
    } else if let error = state.error {
      write("Could not load the films: \(error)")
      hasShownResult = true
    } else if state.films.isEmpty {
      write("No films yet.")
    } else {
      for film in visibleFilms(state) {
        write("Episode \(film.episodeID): \(film.title) (\(film.releaseDate.prefix(4)))")
      }
      hasShownResult = true
    }
  }
}
