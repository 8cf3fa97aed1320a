/// A store that actions can be dispatched to, whatever its state: ReSwift's protocol for code
/// that only dispatches.
///
/// Inject it where a view or a coordinator sends actions and never reads the state, and hand a
/// test a recording stand-in:
///
/// ```swift
/// final class LoginCoordinator {
///   let store: any DispatchingStoreType
///   init(store: any DispatchingStoreType = mainStore) { self.store = store }
///   func logIn() { store.dispatch(LogIn()) }
/// }
/// ```
public protocol DispatchingStoreType {
  /// Sends an action into the store.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Complexity: That of the conforming type; ``Store``'s is O(1) plus its middleware and
  ///   reducer.
  func dispatch(_ action: any Action)
}

/// The interface of a store: ReSwift's protocol, for apps that inject the store as a protocol.
///
/// ``Store`` conforms, and so does `StoreStub.store` in `StatecraftTesting`. Generic code over
/// `StoreType` reads the state, dispatches and subscribes as it did with ReSwift:
///
/// ```swift
/// func showCount<S: StoreType>(in store: S) -> String where S.State == CounterState {
///   guard let state = store.state else { return "–" }
///   return "\(state.count)"
/// }
/// ```
///
/// The requirements have ReSwift's signatures, so a hand-written stand-in that conformed to
/// ReSwift's `StoreType` conforms to this one.
public protocol StoreType<State>: DispatchingStoreType {
  /// The type of the whole state.
  associatedtype State

  /// A function called with the state after an asynchronously created action was reduced.
  associatedtype DispatchCallback = (State) -> Void

  /// A function that returns an action to dispatch, or `nil`.
  associatedtype ActionCreator = (_ state: State, _ store: any StoreType<State>) -> (any Action)?

  /// A function that produces an action creator later and passes it to its callback.
  associatedtype AsyncActionCreator = (
    _ state: State, _ store: any StoreType<State>,
    _ actionCreatorCallback: @escaping (ActionCreator) -> Void
  ) -> Void

  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// The current state.
  ///
  /// Implicitly unwrapped, as in ReSwift, so that `store.state.count`, `store.state?.count` and
  /// `guard let state = store.state` all compile. ``Store`` also has a non-optional `state`,
  /// which code that names the concrete type gets.
  /// - Complexity: O(1) for ``Store``: a lock and a copy of the state.
  var state: State! { get }

  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// The function every `dispatch` goes through: the middleware chain, then the reducer.
  /// - Complexity: O(1).
  var dispatchFunction: DispatchFunction! { get }

  /// Subscribes an object to the whole state.
  ///
  /// - Parameter subscriber: The object to notify.
  /// - Complexity: O(1) amortized for ``Store``, plus delivering the first value.
  @preconcurrency @MainActor
  func subscribe<S: StoreSubscriber>(_ subscriber: S) where S.StoreSubscriberStateType == State

  /// Subscribes an object to a selection of the state.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify.
  ///   - transform: Builds the subscription from one of the whole state; `nil` for the whole
  ///     state.
  /// - Complexity: O(1) amortized for ``Store``, plus delivering the first value.
  @preconcurrency @MainActor
  func subscribe<SelectedState, S: StoreSubscriber>(
    _ subscriber: S, transform: ((Subscription<State>) -> Subscription<SelectedState>)?
  ) where S.StoreSubscriberStateType == SelectedState

  /// Ends the subscription of `subscriber`.
  ///
  /// - Parameter subscriber: The object passed to `subscribe`.
  /// - Complexity: O(1) amortized for ``Store``.
  func unsubscribe(_ subscriber: any AnyStoreSubscriber)

  /// Calls an action creator and dispatches the action it returns.
  ///
  /// - Parameter actionCreator: The function to call.
  /// - Complexity: The action creator, plus a dispatch.
  func dispatch(_ actionCreator: ActionCreator)

  /// Calls an asynchronous action creator; dispatches the action of the creator it passes back.
  ///
  /// - Parameter asyncActionCreator: The function to call.
  /// - Complexity: The action creator, plus a dispatch when it calls back.
  func dispatch(_ asyncActionCreator: AsyncActionCreator)

  /// Calls an asynchronous action creator, then `callback` with the state once the action of
  /// the creator it passes back was reduced.
  ///
  /// - Parameters:
  ///   - asyncActionCreator: The function to call.
  ///   - callback: Called with the state after the action was reduced.
  /// - Complexity: The action creator, plus a dispatch and `callback` when it calls back.
  func dispatch(_ asyncActionCreator: AsyncActionCreator, callback: DispatchCallback?)
}

/// Gives ``Store`` the implicitly unwrapped `state` that ``StoreType`` requires, next to its own
/// non-optional one: an extension of the same class may not declare a second `state`, a
/// protocol extension may, and Swift prefers the class's own where both type-check.
public protocol _StoreStateReading {
  associatedtype State
  var _committedState: State { get }
}

extension _StoreStateReading where Self: StoreType {
  // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
  /// The current state, implicitly unwrapped as in ReSwift: never `nil`.
  ///
  /// Chosen only where the non-optional ``Store/state`` does not type-check, such as
  /// `store.state?.count` or `guard let state = store.state`.
  /// - Complexity: O(1), as ``Store/state``.
  public var state: State! {
    _committedState
  }
}
