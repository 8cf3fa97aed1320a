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
    store.subscribe(self) { $0.only(when: { $0.isSearching && !$1.isSearching }) }
  }

  deinit {
    store.unsubscribe(self)
  }

  func newState(state: SearchState) {
    guard !state.query.isEmpty else { return }
    shownQueries.append(state.query)
    let list = state.results.isEmpty ? "no match" : state.results.joined(separator: ", ")
    write("\"\(state.query)\": \(list)")
  }
}
