import Statecraft
import StatecraftTools

/// A store for testing a view alone, like ReactorKit's stub: it records the actions the view
/// dispatches without reducing them, and shows the view whatever state the test sets.
///
/// ```swift
/// @MainActor @Test func tappingRefreshFetchesFilms() {
///   let stub = StoreStub(state: AppState(films: [hope]))
///   let view = FilmsViewController(store: stub.store)
///   view.viewDidLoad()
///   view.refreshTapped()
///   #expect(stub.actions.contains { $0 is RefreshFilms })
///   stub.setState(AppState(isLoading: true))   // the view renders a spinner
/// }
/// ```
public final class StoreStub<State: Sendable>: Sendable {
  /// The store to hand to the view.
  public let store: Store<State>
  private let recorded = LockedBox<[any Action]>([])

  /// Creates a stub showing `state`.
  ///
  /// - Parameter state: The state the store starts with.
  public init(state: State) {
    let recorded = self.recorded
    let record: Middleware<State> = { _, _ in
      { next in
        { action in
          if action is ForcedState<State> {
            next(action)
          } else {
            recorded.withLock { $0.append(action) }
          }
        }
      }
    }
    store = Store(
      reducer: { (state: inout State, action: any Action) in
        if let forced = action as? ForcedState<State> { state = forced.state }
      },
      state: state,
      middleware: [record],
      automaticallySkipsRepeats: false
    )
  }

  /// The actions dispatched to the store, in order; none of them was reduced.
  public var actions: [any Action] {
    recorded.withLock { $0 }
  }

  /// Replaces the store's state; subscribers are notified as for any change.
  ///
  /// - Parameter state: The new state.
  public func setState(_ state: State) {
    store.dispatch(ForcedState(state: state) as any Action)
  }

  /// Forgets the recorded actions.
  public func clearActions() {
    recorded.withLock { $0.removeAll() }
  }
}

private struct ForcedState<State: Sendable>: Action {
  let state: State
}
