import Statecraft
import StatecraftPrimitives

/// Every action the store reduced, in order, with the state it produced.
///
/// Thread-safe: thunks dispatch from other threads.
final class ReductionLog<State: Sendable>: Sendable {
  struct Entry: Sendable {
    let action: any Action
    let state: State
  }

  private let storage = Locked<[Entry]>([])

  var count: Int { storage.withLock { $0.count } }

  func append(_ action: any Action, _ state: State) {
    storage.withLock { $0.append(Entry(action: action, state: state)) }
  }

  func entries(from index: Int) -> [Entry] {
    storage.withLock { Array($0.dropFirst(index)) }
  }

  /// Wraps `reducer` so that every reduction is recorded here.
  func recording(_ reducer: @escaping Reducer<State>) -> Reducer<State> {
    { action, state in
      let next = reducer(action, state)
      self.append(action, next)
      return next
    }
  }

  /// Wraps an in-place `reducer` so that every reduction is recorded here.
  func recordingInPlace(_ reducer: @escaping InPlaceReducer<State>) -> InPlaceReducer<State> {
    { state, action in
      reducer(&state, action)
      self.append(action, state)
    }
  }

  /// Wraps a main-actor `reducer` so that every reduction is recorded here.
  func recordingOnMainActor(
    _ reducer: @escaping @MainActor (any Action, State?) -> State
  ) -> @MainActor (any Action, State?) -> State {
    { action, state in
      let next = reducer(action, state)
      self.append(action, next)
      return next
    }
  }

  /// Wraps a main-actor in-place `reducer` so that every reduction is recorded here.
  func recordingInPlaceOnMainActor(
    _ reducer: @escaping MainActorInPlaceReducer<State>
  ) -> MainActorInPlaceReducer<State> {
    { state, action in
      reducer(&state, action)
      self.append(action, state)
    }
  }
}
