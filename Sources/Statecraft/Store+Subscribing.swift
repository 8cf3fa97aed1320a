extension Store {
  /// Subscribes an object to the whole state.
  ///
  /// The subscriber receives the current state at once, then every committed state, on the main
  /// queue. Subscribing an object that is already subscribed replaces its subscription. With
  /// ``init(reducer:state:middleware:automaticallySkipsRepeats:)-(Reducer<State>,_,_,_)``'s
  /// `automaticallySkipsRepeats` set and an `Equatable` state, states equal to the previous one
  /// are skipped.
  ///
  /// - Parameter subscriber: The object to notify. The store holds it weakly.
  @MainActor
  public func subscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber)
  where Subscriber.StoreSubscriberStateType == State {
    subscribe(subscriber) { $0 }
  }

  /// Subscribes an object to a selection of the state.
  ///
  /// `transform` describes what to select and which changes to skip:
  ///
  /// ```swift
  /// override func viewDidLoad() {
  ///   super.viewDidLoad()
  ///   mainStore.subscribe(self) { $0.select(\.films) }
  /// }
  /// ```
  ///
  /// The subscriber receives the current selection at once, then each committed state's
  /// selection that passes the filters, in commit order. When the selected type is `Equatable`
  /// and the store skips repeats automatically (the default), a selection equal to the previous
  /// one is skipped; this holds in generic code too.
  ///
  /// > Important: Subscribing an object that is already subscribed replaces its subscription and
  /// > moves it to the end of the notification order.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify. The store holds it weakly.
  ///   - transform: Builds the subscription from one of the whole state.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @MainActor
  public func subscribe<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    transform: (Subscription<State>) -> Subscription<SelectedState>
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    let entry = SubscriptionEntryFactory.make(
      core: core, owner: ObjectIdentifier(subscriber), transform: transform
    ) { [weak subscriber] entry, value in
      guard let subscriber else {
        entry.markGone()
        return
      }
      subscriber.newState(state: value)
    }
    core.register(entry.entry, initial: entry.initial)
  }

  /// Subscribes a closure to a selection of the state, for code that is not a class.
  ///
  /// ```swift
  /// let token = mainStore.subscribe({ $0.select(\.count) }, receive: { count in
  ///   print("count:", count)
  /// })
  /// ```
  ///
  /// The subscription lasts until you call ``SubscriptionToken/cancel()`` or release the token.
  ///
  /// - Parameters:
  ///   - transform: Builds the subscription from one of the whole state.
  ///   - receive: Called on the main actor with the current selection at once, then with each
  ///     committed state's selection that passes the filters.
  /// - Returns: The token that keeps the subscription alive.
  @MainActor
  public func subscribe<SelectedState>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    receive: @escaping @MainActor (SelectedState) -> Void
  ) -> SubscriptionToken {
    let made = SubscriptionEntryFactory.make(core: core, owner: nil, transform: transform) {
      _, value in receive(value)
    }
    core.register(made.entry, initial: made.initial)
    let entry = made.entry
    return SubscriptionToken { [weak core] in core?.remove(entry) }
  }

  /// Ends the subscription of `subscriber`.
  ///
  /// Call it from anywhere, including the `deinit` of a main-actor class. Called on the main
  /// queue during a notification round, it takes effect at once: the subscriber is not called
  /// again, not even for the rest of the round. Unsubscribing an object that is not subscribed
  /// does nothing.
  ///
  /// - Parameter subscriber: The object passed to `subscribe`.
  /// - Complexity: O(1) amortized.
  public func unsubscribe(_ subscriber: AnyObject) {
    core.removeSubscription(of: ObjectIdentifier(subscriber))
  }
}

extension StoreCore {
  @MainActor
  func register(_ entry: SubscriptionEntry<State>, initial: State) {
    let replaced = registry.withLock { $0.add(entry) }
    if replaced != nil {
      committed.withLock { $0.subscriptionCount -= 1 }
    }
    entry.deliverInitial(initial)
  }

  func removeSubscription(of owner: ObjectIdentifier) {
    let removed = registry.withLock { $0.remove(owner: owner) }
    if removed {
      committed.withLock { $0.subscriptionCount -= 1 }
    }
  }

  func remove(_ entry: SubscriptionEntry<State>) {
    let removed = registry.withLock { $0.remove(entry) }
    if removed {
      committed.withLock { $0.subscriptionCount -= 1 }
    }
  }
}
