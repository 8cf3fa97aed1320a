/// An object that receives a store's state, or a selection of it, whenever it changes.
///
/// Subscribers are main-actor isolated: a view controller conforms as it is, with no
/// `nonisolated` or `@preconcurrency` annotation. The store holds subscribers weakly.
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
@MainActor
public protocol StoreSubscriber: AnyObject {
  /// The type of value the subscriber receives: the store's state or a selection of it.
  associatedtype StoreSubscriberStateType

  /// Receives a new state.
  ///
  /// Called once as soon as the subscriber subscribes, with the current state, and then for
  /// each committed state that passes the subscription's filters. Dispatching from here is
  /// allowed: the action runs after the current round of notifications.
  ///
  /// - Parameter state: The new (selected) state.
  func newState(state: StoreSubscriberStateType)
}
