// An app written for ReSwift and ReSwift-Thunk, in the Swift 5 language mode, moved over by
// changing `import ReSwift` and `import ReSwiftThunk` to `import Statecraft`. Nothing else in
// this target was edited for Statecraft: no `@MainActor`, no `Sendable`, no `nonisolated`.
import Dispatch
import Statecraft

struct AppState: StateType, Equatable {
  var counter = 0
  var name: String?
  var films: [String] = []
}

struct IncreaseCounter: Action, Equatable {}
struct SetName: Action, Equatable { let name: String? }
struct SetFilms: Action, Equatable { let films: [String] }

func appReducer(action: Action, state: AppState?) -> AppState {
  var state = state ?? AppState()
  switch action {
  case _ as ReSwiftInit: break
  case _ as IncreaseCounter: state.counter += 1
  case let action as SetName: state.name = action.name
  case let action as SetFilms: state.films = action.films
  default: break
  }
  return state
}

/// A subscriber as ReSwift apps write them: a plain class, read from anywhere.
class TestSubscriber<T>: StoreSubscriber {
  var receivedStates: [T] = []
  var onNewState: ((T) -> Void)?

  func newState(state: T) {
    receivedStates.append(state)
    onNewState?(state)
  }
}

/// Subscribes from whatever thread calls it, as nonisolated Swift 5 code may.
func subscribeToCounter(_ subscriber: TestSubscriber<Int>, on store: Store<AppState>) {
  store.subscribe(subscriber) { $0.select { $0.counter } }
}

/// A coordinator that receives the store as a protocol, so tests can hand it a stand-in.
final class CounterCoordinator {
  let store: DispatchingStoreType

  init(store: DispatchingStoreType) {
    self.store = store
  }

  func increase() {
    store.dispatch(IncreaseCounter())
  }
}

/// Generic over `StoreType`, as helpers in ReSwift apps are.
func counterText<S: StoreType>(of store: S) -> String where S.State == AppState {
  guard let state = store.state else { return "-" }
  return "\(state.counter) / \(store.state?.name ?? "nobody")"
}

/// An action creator in ReSwift's shape.
func renameIfEmpty(_ name: String) -> Store<AppState>.ActionCreator {
  return { state, _ in
    state.name == nil ? SetName(name: name) : nil
  }
}

/// ReSwift's asynchronous action creator: a creator passed back later, from another queue.
func loadFilms(_ films: [String]) -> Store<AppState>.AsyncActionCreator {
  return { _, _, callback in
    DispatchQueue.global().async {
      callback { _, _ in SetFilms(films: films) }
    }
  }
}

/// A ReSwift-Thunk thunk: dispatches at once and later, from a background queue.
func fetchFilms(_ films: [String]) -> Thunk<AppState> {
  return Thunk<AppState> { dispatch, getState in
    guard getState()?.films.isEmpty ?? false else { return }
    dispatch(SetName(name: "loading"))
    DispatchQueue.global().async {
      dispatch(SetFilms(films: films))
    }
  }
}

/// A middleware in ReSwift's curried shape that records what it sees.
final class ActionLog {
  private let lock = DispatchSemaphore(value: 1)
  private var names: [String] = []

  var actions: [String] {
    lock.wait()
    defer { lock.signal() }
    return names
  }

  func append(_ action: Action) {
    lock.wait()
    names.append("\(type(of: action))")
    lock.signal()
  }

  func middleware() -> Middleware<AppState> {
    return { _, _ in
      return { next in
        return { action in
          self.append(action)
          next(action)
        }
      }
    }
  }
}

/// A custom subscription operator, written as ReSwift's documentation shows: a subscription
/// built from a sink, observing the one it extends.
extension Subscription {
  func onlyIncreasing(_ value: @escaping (State) -> Int) -> Subscription<State> {
    return Subscription<State> { sink in
      self.observer = { oldState, newState in
        guard let oldState = oldState else { return sink(nil, newState) }
        if value(newState) > value(oldState) { sink(oldState, newState) }
      }
    }
  }
}

/// ReSwift's `Coding`, for state that tools turn into dictionaries.
struct CounterSnapshot: Coding {
  let counter: Int

  init(counter: Int) {
    self.counter = counter
  }

  init?(dictionary: [String: AnyObject]) {
    guard let counter = dictionary["counter"] as? Int else { return nil }
    self.counter = counter
  }

  var dictionaryRepresentation: [String: AnyObject] {
    return ["counter": counter as AnyObject]
  }
}
