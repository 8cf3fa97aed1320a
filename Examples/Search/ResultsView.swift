import Statecraft

/// Prints the results each time a search finishes.
final class ResultsView: StoreSubscriber {
  private let store: Store<SearchState>
  private let write: (String) -> Void
  private(set) var shownQueries: [String] = []

  init(store: Store<SearchState>, write: @escaping (String) -> Void = { print($0) }) {
    self.store = store
    self.write = write
  }

  func appear() {
    // The finished search, not the moment searching stops: a search that starts and finishes
    // between two rounds is never seen searching, and its results must still show.
    store.subscribe(self) {
      $0.select { $0.isSearching ? nil : Finished(query: $0.query, results: $0.results) }
    }
  }

  deinit {
    store.unsubscribe(self)
  }

  func newState(state finished: Finished?) {
    guard let finished, !finished.query.isEmpty else { return }
    shownQueries.append(finished.query)
    let list = finished.results.isEmpty ? "no match" : finished.results.joined(separator: ", ")
    write("\"\(finished.query)\": \(list)")
  }
}

/// A search that has finished: what the view shows.
struct Finished: Equatable {
  let query: String
  let results: [String]
}
