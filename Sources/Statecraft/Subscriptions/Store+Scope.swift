extension Store {
  /// A store for one part of the state, sharing this store's state: ReactorKit's per-view
  /// reactor, without a second source of truth.
  ///
  /// ```swift
  /// final class ProfileViewController: UIViewController, StoreSubscriber {
  ///   let store = mainStore.scope(\.profile)     // a Store<Profile>
  ///
  ///   override func viewDidLoad() {
  ///     super.viewDidLoad()
  ///     store.subscribe(self) { $0.select(\.name) }
  ///   }
  ///   @objc func save() { store.dispatch(ProfileAction.save) }
  ///   func newState(state name: String) { nameLabel.text = name }
  /// }
  /// ```
  ///
  /// The scope is a `Store<Slice>`: code written against a store works with it. It keeps no
  /// state of its own: its ``state`` reads this store's committed state through `keyPath`, so
  /// it is current on every thread, and a subscriber of the scope receives the newest committed
  /// slice, as a subscriber of this store would. Actions dispatched to it (and thunks' actions)
  /// go to this store, through its middleware and reducer; so do its batches. It has no
  /// middleware of its own: setting some stops the program with a message.
  ///
  /// Its subscribers are notified in this store's rounds, through one subscription of the
  /// scope's to this store that skips repeats of the slice, so a dispatch that does not change
  /// the slice costs one comparison, however many subscribers the scope has. The slice is
  /// compared with its `Equatable` conformance, looked up on the main actor, so one isolated to
  /// it serves; a slice that is not `Equatable` is handed to the scope's subscriptions with
  /// every state this store delivers, and they skip their own repeats. Listeners
  /// (``ThunkContext/take(where:timeout:)``, ``actions()``) see this store's actions.
  ///
  /// The scope lives as long as it has subscribers or you hold it, so a local variable in
  /// `viewDidLoad` is enough. It holds this store weakly: keep this store (usually a
  /// global) while you use its scopes; reading a scope's `state` after this store is released
  /// stops the program with a message saying so.
  ///
  /// - Parameter keyPath: The part of the state.
  /// - Returns: A store whose state is that part.
  /// - Complexity: O(1). Reading the scope's `state` costs a read of this store's state plus the
  ///   key path. While the scope has subscribers, each state this store delivers costs a read of
  ///   the key path and one comparison of slices.
  public func scope<Slice: Sendable>(
    _ keyPath: KeyPath<State, Slice> & Sendable
  ) -> Store<Slice> {
    Store<Slice>(engine: .scope(_engine.any.scope(keyPath)), thunks: ThunkRunner())
  }
}
