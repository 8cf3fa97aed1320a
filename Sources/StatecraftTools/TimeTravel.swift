import Statecraft
import StatecraftPrimitives

/// Moves a store back and forth through the states its actions produced, for debugging.
///
/// ```swift
/// #if DEBUG
///   let timeTravel = TimeTravel<AppState>()
///   let mainStore = Store(reducer: timeTravel.wrap(appReducer), state: nil)
///   // later, in a debug menu:
///   timeTravel.jump(mainStore, to: 3)                         // the state after action 3
///   timeTravel.jump(mainStore, to: timeTravel.count - 1)      // back to the present
/// #endif
/// ```
///
/// Jumping replaces the store's state, so subscribers are notified as for any change; jumping
/// to the last index returns to the present. An action dispatched after a jump back continues
/// from the state jumped to and drops the later history, as an editor's undo does.
public final class TimeTravel<State: Sendable>: Sendable {
  private let history = Locked<(states: [State], actions: [String], position: Int?)>(
    ([], [], nil))

  /// Creates an empty history.
  /// - Complexity: O(1).
  public init() {}

  /// How many states the history holds: the first is the state after the first action.
  /// - Complexity: O(1).
  public var count: Int {
    history.withLock { $0.states.count }
  }

  /// The names of the actions, in order, one per state.
  /// - Complexity: O(1): a lock and a copy of the array (a reference count).
  public var actionNames: [String] {
    history.withLock { $0.actions }
  }

  /// The state after action `index`.
  ///
  /// - Parameter index: From 0 to ``count`` − 1.
  /// - Returns: The state, or `nil` if `index` is out of range.
  /// - Complexity: O(1).
  public func state(at index: Int) -> State? {
    history.withLock { $0.states.indices.contains(index) ? $0.states[index] : nil }
  }

  /// Wraps `reducer` so that every state it returns is recorded.
  ///
  /// - Parameter reducer: The app's reducer.
  /// - Returns: The reducer to create the store with.
  /// - Complexity: O(1) to wrap. Each action then costs the reducer's work, a description of
  ///   the action, and O(*d*) for the *d* later states dropped after a jump back.
  public func wrap(_ reducer: @escaping Reducer<State>) -> Reducer<State> {
    { [history] action, state in
      if let jump = action as? TimeTravelJump<State> {
        history.withLock { $0.position = jump.index }
        return jump.state
      }
      let next = reducer(action, state)
      history.withLock { history in
        if let position = history.position {
          history.states.removeSubrange((position + 1)...)
          history.actions.removeSubrange((position + 1)...)
          history.position = nil
        }
        history.states.append(next)
        history.actions.append(String(describing: action))
      }
      return next
    }
  }

  /// Moves `store` to the state after action `index`.
  ///
  /// - Parameters:
  ///   - store: The store created with ``wrap(_:)``.
  ///   - index: From 0 to ``count`` − 1.
  /// - Returns: Whether `index` was in range.
  /// - Complexity: O(1), plus one `Store.dispatch(_:)` of the state.
  @discardableResult
  public func jump(_ store: Store<State>, to index: Int) -> Bool {
    guard let state = state(at: index) else { return false }
    store.dispatch(TimeTravelJump(index: index, state: state) as any Action)
    return true
  }
}

struct TimeTravelJump<State: Sendable>: ToolAction {
  let index: Int
  let state: State

  var toolDescription: String { "time travel: jump to the state after action \(index)" }
}
