/// An object that receives a store's state, or a selection of it, whenever it changes.
///
/// Subscribers are main-actor isolated: a view controller conforms as it is, with no
/// `nonisolated` or `@preconcurrency` annotation. The store holds subscribers weakly.
///
/// The isolation is `@preconcurrency`, so code written for ReSwift in the Swift 5 language mode
/// (a plain class subscribing from an XCTest method) compiles unchanged; in the Swift 6 mode the
/// compiler warns where such code touches a subscriber off the main actor. Whatever the mode,
/// ``newState(state:)`` is called on the main queue only.
///
/// ```swift
/// final class FilmsViewController: UIViewController, StoreSubscriber {
///   override func viewDidLoad() {
///     super.viewDidLoad()
///     mainStore.subscribe(self) { $0.select(\.films) }
///   }
///
///   deinit { mainStore.unsubscribe(self) }
///
///   func newState(state films: [Film]) {
///     render(films)
///   }
/// }
/// ```
///
/// > Important: ``newState(state:)`` is always called on the main queue, never nested inside
/// > another call to it, with the newest committed state that passes the subscription's filters:
/// > never an older state after a newer one. States superseded before the main queue got to them
/// > are skipped.
@preconcurrency @MainActor
public protocol StoreSubscriber: AnyStoreSubscriber {
  /// The type of value the subscriber receives: the store's state or a selection of it.
  associatedtype StoreSubscriberStateType

  /// Receives a new state.
  ///
  /// Called once as soon as the subscriber subscribes, with the current state, and then for
  /// each committed state that passes the subscription's filters. Dispatching from here is
  /// allowed: the action runs after the current round of notifications.
  ///
  /// - Parameter state: The new (selected) state.
  /// - Complexity: The subscriber's own; the store calls it once per delivered value, on the main
  ///   queue, and waits for it, so keep it short.
  func newState(state: StoreSubscriberStateType)
}

/// Any subscriber, whatever the type of value it receives: ReSwift's type for code that keeps
/// subscribers in a collection or unsubscribes them without knowing their state type.
///
/// Conform to ``StoreSubscriber``, which provides `_newState(state:)`.
@preconcurrency @MainActor
public protocol AnyStoreSubscriber: AnyObject {
  /// Receives a state of any type; does nothing if it is not the subscriber's.
  ///
  /// ReSwift's type-erased entry point. The store never calls it: it calls
  /// ``StoreSubscriber/newState(state:)`` with the selected value.
  func _newState(state: Any)
}

extension StoreSubscriber {
  /// Passes `state` to ``newState(state:)`` if it is a ``StoreSubscriberStateType``.
  ///
  /// - Parameter state: The state, of any type.
  /// - Complexity: O(1) plus ``newState(state:)``.
  public func _newState(state: Any) {
    if let state = state as? StoreSubscriberStateType {
      newState(state: state)
    }
  }
}
