// The same app code in a module built with `.defaultIsolation(MainActor.self)`, the default of
// new app targets. There every declaration is main-actor isolated unless it says otherwise. Two
// words are needed: the reducer runs wherever actions are reduced, so it is `nonisolated`, and
// the global store is `nonisolated` so that background code can dispatch to it. State and
// action types are `Sendable`, so they need nothing. Everything else is written as usual.
import Dispatch
import Statecraft

struct AppState: Equatable, Sendable {
  var count = 0
}

enum CounterAction: Action {
  case increment
}

nonisolated func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if case CounterAction.increment = action { state.count += 1 }
  return state
}

nonisolated let mainStore = Store<AppState>(reducer: appReducer, state: nil)

final class CounterViewController: StoreSubscriber {
  private(set) var count = 0

  func viewDidLoad() {
    mainStore.subscribe(self) { $0.select(\.count) }
  }

  func newState(state: Int) {
    count = state
  }

  func incrementLater() {
    DispatchQueue.global().async {
      mainStore.dispatch(CounterAction.increment)
    }
  }
}

/// Lets the tests reach the fixture.
public enum MainActorClient {
  public static func incrementAndRead() -> Int {
    let controller = CounterViewController()
    controller.viewDidLoad()
    mainStore.dispatch(CounterAction.increment)
    return controller.count
  }
}
