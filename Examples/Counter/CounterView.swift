import CounterModel
import Statecraft

/// Renders the count, the way a view controller would: it subscribes when it appears and
/// unsubscribes when it goes away.
final class CounterView: StoreSubscriber {
  private let write: (String) -> Void

  init(write: @escaping (String) -> Void = { print($0) }) {
    self.write = write
  }

  func appear() {
    mainStore.subscribe(self) { $0.select(\.count) }
  }

  deinit {
    mainStore.unsubscribe(self)
  }

  func newState(state count: Int) {
    write("count: \(count)")
  }
}
