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
  /// go to this store, through its middleware and reducer. The scope learns of changes through
  /// one subscription to this store that skips repeats, so a dispatch that does not change the
  /// slice costs one comparison, however many subscribers the scope has.
  ///
  /// The scope lives as long as it has subscribers or you hold it, so a local variable in
  /// `viewDidLoad` is enough. It holds this store weakly: keep this store (usually a
  /// global) while you use its scopes; reading a scope's `state` after this store is released
  /// stops the program with a message saying so.
  ///
  /// - Parameter keyPath: The part of the state.
  /// - Returns: A store whose state is that part.
  /// - Complexity: O(1) amortized, plus one subscription to this store. Reading the scope's
  ///   `state` costs a read of this store's state plus the key path.
  @MainActor
  public func scope<Slice: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Slice> & Sendable
  ) -> Store<Slice> {
    let holder = TokenHolder()
    // Weak: this store keeps the scope alive while the scope has subscribers (ScopeAnchor).
    let root = WeakCore(_core)
    let scoped = Store<Slice>(
      reduce: .inPlace { _, _ in preconditionFailure("a scope sends its actions to its root") },
      state: nil,
      middleware: [],
      automaticallySkipsRepeats: _core._automaticallySkipsRepeats,
      source: {
        guard let core = root.core else { return nil }
        core._reduction.checkNotReducing(.readState)
        return core._reduction.snapshot.map { ($0.state[keyPath: keyPath], $0.version) }
      },
      parent: .init(
        // Everything goes to the root, through its middleware: a thunk runs there too. The
        // scope keeps its subscription to the root (the holder) alive.
        dispatch: { action in
          _ = holder
          root.core?.dispatchFromMiddleware(action)
        },
        batch: { body in
          if let core = root.core { core.batch(body) } else { body() }
        })
    )
    let anchor = ScopeAnchor(scoped)
    scoped._core.observeOccupancy { [weak anchor] in anchor?.update() }
    // Called in this store's round, on the main queue: the scope's round then delivers the
    // newest committed slice to the scope's subscribers.
    let token = subscribe({ $0.select(keyPath) }, receive: { _ in anchor.scope?._core.notify() })
    holder.hold(token)
    return scoped
  }
}

/// A weak reference to a store's engine that closures can share.
private final class WeakCore<State: Sendable>: Sendable {
  weak let core: StoreCore<State>?

  init(_ core: StoreCore<State>) {
    self.core = core
  }
}

/// How this store's subscription reaches a scope: strongly while the scope has subscribers, so
/// that a scope kept only by its subscribers (a local in `viewDidLoad`) keeps delivering, and
/// weakly otherwise, so that an unused scope is released and ends the subscription.
private final class ScopeAnchor<Slice: Sendable>: Sendable {
  private struct References {
    weak var weak: Store<Slice>?
    var strong: Store<Slice>?
  }

  private let references: Locked<References>

  init(_ scope: Store<Slice>) {
    references = Locked(References(weak: scope, strong: nil))
  }

  var scope: Store<Slice>? {
    references.withLock { $0.strong ?? $0.weak }
  }

  /// Holds the scope strongly if it has subscribers now, else weakly.
  ///
  /// Called after each change of the scope's subscription count through zero; reads the count
  /// itself, so calls that race each other still end with the right reference.
  func update() {
    let released = references.withLock { references -> Store<Slice>? in
      guard let scope = references.strong ?? references.weak else { return nil }
      let isSubscribed = scope._core._words.subscriptionCount(ordering: .sequentiallyConsistent) > 0
      defer { references.strong = isSubscribed ? scope : nil }
      return isSubscribed ? nil : references.strong
    }
    withExtendedLifetime(released) {}  // a released scope deinitializes outside the lock
  }
}
