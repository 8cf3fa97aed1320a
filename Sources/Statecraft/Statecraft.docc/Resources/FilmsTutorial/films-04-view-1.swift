import Statecraft

/// Renders the film list the way a table view controller would: subscribed to the store,
/// redrawn on each change.
final class FilmsView: StoreSubscriber {
  private let store: Store<AppState>
  private let write: (String) -> Void

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
    for film in state.films {
      write("Episode \(film.episodeID): \(film.title) (\(film.releaseDate.prefix(4)))")
    }
  }
}
