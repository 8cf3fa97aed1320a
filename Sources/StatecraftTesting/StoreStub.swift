import Statecraft
import StatecraftPrimitives

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
  /// - Complexity: O(1).
  public let store: Store<State>
  private let recorded = Locked<[any Action]>([])

  /// Creates a stub showing `state`.
  ///
  /// - Parameter state: The state the store starts with.
  /// - Complexity: O(1).
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
  /// - Complexity: O(1): a lock and a copy of the array (a reference count).
  public var actions: [any Action] {
    recorded.withLock { $0 }
  }

  /// Replaces the store's state; subscribers are notified as for any change.
  ///
  /// - Parameter state: The new state.
  /// - Complexity: O(1), plus one notification round on the main queue: O(s) for s
  ///   subscriptions.
  public func setState(_ state: State) {
    store.dispatch(ForcedState(state: state) as any Action)
  }

  /// Forgets the recorded actions.
  /// - Complexity: O(n) for n recorded actions.
  public func clearActions() {
    recorded.withLock { $0.removeAll() }
  }
}

private struct ForcedState<State: Sendable>: Action {
  let state: State
}

extension StoreStub: StoreType {
  /// A function called with the state after an asynchronously created action was reduced.
  public typealias DispatchCallback = (State) -> Void
  /// The store's action creator.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public typealias ActionCreator = Store<State>.ActionCreator
  /// The store's asynchronous action creator.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public typealias AsyncActionCreator = Store<State>.AsyncActionCreator

  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// The state the stub shows.
  /// - Complexity: O(1).
  public var state: State! {
    store.state
  }

  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// Records an action, as the stub's store does.
  /// - Complexity: O(1) amortized.
  public var dispatchFunction: DispatchFunction! {
    store.dispatchFunction
  }

  /// Records `action` without reducing it.
  ///
  /// - Parameter action: The action.
  /// - Complexity: O(1) amortized.
  public func dispatch(_ action: any Action) {
    store.dispatch(action)
  }

  /// Calls the action creator with the stub's state and records the action it returns.
  ///
  /// - Parameter actionCreator: The function to call.
  /// - Complexity: The action creator, plus O(1) amortized.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ actionCreator: ActionCreator) {
    store.dispatch(actionCreator)
  }

  /// Calls the asynchronous action creator; records the action of the creator it passes back.
  ///
  /// - Parameter asyncActionCreator: The function to call.
  /// - Complexity: The action creator, plus O(1) amortized.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ asyncActionCreator: AsyncActionCreator) {
    store.dispatch(asyncActionCreator)
  }

  /// Calls the asynchronous action creator; records the action of the creator it passes back,
  /// then calls `callback` with the stub's state.
  ///
  /// - Parameters:
  ///   - asyncActionCreator: The function to call.
  ///   - callback: Called with the state after the action was recorded.
  /// - Complexity: The action creator, plus O(1) amortized.
  @available(*, deprecated, message: "Use a Thunk: it can await, be cancelled and be tested.")
  public func dispatch(_ asyncActionCreator: AsyncActionCreator, callback: DispatchCallback?) {
    store.dispatch(asyncActionCreator, callback: callback)
  }

  /// Subscribes an object to the stub's state.
  ///
  /// - Parameter subscriber: The object to notify.
  /// - Complexity: As `Store.subscribe(_:)`.
  @preconcurrency @MainActor
  public func subscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber)
  where Subscriber.StoreSubscriberStateType == State {
    store.subscribe(subscriber)
  }

  /// Subscribes an object to a selection of the stub's state.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify.
  ///   - transform: Builds the subscription from one of the whole state, or `nil`.
  /// - Complexity: As `Store.subscribe(_:transform:)`.
  @preconcurrency @MainActor
  public func subscribe<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    transform: ((Subscription<State>) -> Subscription<SelectedState>)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    store.subscribe(subscriber, transform: transform)
  }

  /// Ends the subscription of `subscriber`.
  ///
  /// - Parameter subscriber: The object passed to `subscribe`.
  /// - Complexity: O(1) amortized.
  public func unsubscribe(_ subscriber: any AnyStoreSubscriber) {
    store.unsubscribe(subscriber)
  }
}
