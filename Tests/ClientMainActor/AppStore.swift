// The counter in a module built with `.defaultIsolation(MainActor.self)`, the default of new app
// targets: every declaration is main-actor isolated unless it says otherwise. One word is
// needed, and the language asks for it: the global store is `nonisolated`, so that background
// code can reach it. The reducer stays main-actor isolated; the store reduces it on the main
// queue (C17 in Docs/ConcurrencyModel.md).
import Dispatch
import Statecraft

struct AppState: Equatable {
  var count = 0
}

enum CounterAction: Action {
  case increment
}

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  if case CounterAction.increment = action { state.count += 1 }
  return state
}

nonisolated let counterStore = Store<AppState>(reducer: appReducer, state: nil)

final class CounterViewController: StoreSubscriber {
  private(set) var count = 0

  func viewDidLoad() {
    counterStore.subscribe(self) { $0.select(\.count) }
  }

  func newState(state: Int) {
    count = state
  }
}

/// Lets the tests reach the fixture.
public enum MainActorClient {
  public static func incrementAndRead() -> Int {
    let controller = CounterViewController()
    controller.viewDidLoad()
    counterStore.dispatch(CounterAction.increment)
    return controller.count
  }
}
