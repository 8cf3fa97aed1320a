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
  /// The scope is a `Store<Slice>`: code written against a store works with it. Actions
  /// dispatched to it (and thunks' actions) go to this store, through its middleware and
  /// reducer. The scope follows the slice through one subscription to this store that skips
  /// repeats, so a dispatch that does not change the slice costs one comparison, however many
  /// subscribers the scope has.
  ///
  /// > Important: The scope's ``state`` is the slice as last delivered on the main queue: after
  /// > a dispatch from another thread it catches up when the main queue delivers. Read this
  /// > store's `state` for the committed value.
  ///
  /// - Parameter keyPath: The part of the state.
  /// - Returns: A store whose state is that part.
  /// - Complexity: O(1) amortized, plus one subscription to this store.
  @MainActor
  public func scope<Slice: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Slice> & Sendable
  ) -> Store<Slice> {
    let holder = TokenHolder()
    let forward: Middleware<Slice> = { [self] _, _ in
      { next in
        { action in
          _ = holder  // the scope keeps its subscription to this store alive
          if action is SliceReplacement<Slice> {
            next(action)
          } else {
            self.dispatchFromScope(action)
          }
        }
      }
    }
    let scoped = Store<Slice>(
      reducer: { (slice: inout Slice, action: any Action) in
        if let replacement = action as? SliceReplacement<Slice> { slice = replacement.slice }
      },
      state: state[keyPath: keyPath],
      middleware: [forward],
      automaticallySkipsRepeats: core.automaticallySkipsRepeats
    )
    let token = subscribe(
      { $0.select(keyPath) },
      receive: { [weak scoped] slice in scoped?.dispatch(SliceReplacement(slice: slice)) })
    holder.hold(token)
    return scoped
  }

  /// Sends an action dispatched to a scope on to this store; thunks run here.
  private func dispatchFromScope(_ action: any Action) {
    core.dispatchFromMiddleware(action)
  }
}

/// The action a scope reduces to follow its slice.
private struct SliceReplacement<Slice: Sendable>: Action {
  let slice: Slice
}
