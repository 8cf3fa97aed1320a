import StatecraftPrimitives

// The ways to subscribe and unsubscribe. What they build, and the closures a notification runs,
// are in Subscription.swift.

extension Store {
  /// Subscribes an object to the whole state.
  ///
  /// The subscriber receives the current state at once, then the newest committed state in each
  /// round of notifications on the main queue. Subscribing an object that is already subscribed replaces its subscription. With
  /// ``init(reducer:state:middleware:automaticallySkipsRepeats:)-(Reducer<State>,_,_,_)``'s
  /// `automaticallySkipsRepeats` set and an `Equatable` state, states equal to the previous one
  /// are skipped.
  ///
  /// - Parameter subscriber: The object to notify. The store holds it weakly.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber)
  where Subscriber.StoreSubscriberStateType == State {
    connect(
      subscriber, select: { $0 },
      skipping: _engine.any.automaticallySkipsRepeats ? dynamicEquality(of: State.self) : nil)
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
  /// selection that passes the filters, newest first: never an older state after a newer one.
  /// When the selected type is `Equatable` and the store skips repeats automatically (the
  /// default), a selection equal to the previous one is skipped; this holds in generic code too.
  /// A selection of another type is delivered for every committed state unless a filter such as
  /// ``Subscription/skipRepeats(_:)`` follows it; debug builds warn once when subscribing.
  ///
  /// `transform` is optional, as in ReSwift: with `nil`, the subscriber receives the whole
  /// state, and its ``StoreSubscriber/StoreSubscriberStateType`` must be the store's `State`
  /// (another type stops the program with a message); ``subscribe(_:)`` says so in its type.
  ///
  /// > Important: Subscribing an object that is already subscribed replaces its subscription and
  /// > moves it to the end of the notification order.
  ///
  /// Because the store holds the subscriber weakly, each `newState` call first reads that weak
  /// reference, a little more than a closure subscription (``subscribe(_:receive:)``)
  /// costs. A selection skipped as a repeat costs the same in both forms.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify. The store holds it weakly.
  ///   - transform: Builds the subscription from one of the whole state; `nil` for the whole
  ///     state.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    transform: ((Subscription<State>) -> Subscription<SelectedState>)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    connect(
      subscriber, transform ?? Store.wholeState(for: Subscriber.self),
      repeats: dynamicEquality(of: SelectedState.self))
  }

  /// The transform of a subscription without one: the whole state, which must be what
  /// `Subscriber` receives.
  @usableFromInline
  static func wholeState<SelectedState, Subscriber: StoreSubscriber>(
    for subscriber: Subscriber.Type
  ) -> (Subscription<State>) -> Subscription<SelectedState>
  where Subscriber.StoreSubscriberStateType == SelectedState {
    { whole in
      guard let selected = whole as? Subscription<SelectedState> else {
        Misuse.wholeStateSubscriber(Subscriber.self, receives: SelectedState.self, of: State.self)
      }
      return selected
    }
  }

  /// Subscribes a closure to a selection of the state for as long as you keep the returned token:
  /// a token that is not stored ends the subscription after the first value.
  ///
  /// ```swift
  /// let token = mainStore.subscribe({ $0.select(\.count) }, receive: { count in
  ///   print("count:", count)
  /// })
  /// ```
  ///
  /// The subscription lasts until you call ``SubscriptionToken/cancel()`` or release the token;
  /// either releases the closure and what it captures before it returns (on the main queue).
  /// Selections are skipped when they repeat under the same rules as for
  /// ``subscribe(_:transform:)``.
  ///
  /// - Parameters:
  ///   - transform: Builds the subscription from one of the whole state.
  ///   - receive: Called on the main actor with the current selection at once, then with each
  ///     committed state's selection that passes the filters.
  /// - Returns: The token that keeps the subscription alive.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<SelectedState>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    receive: @escaping @MainActor (SelectedState) -> Void
  ) -> SubscriptionToken {
    connect(transform, repeats: dynamicEquality(of: SelectedState.self), receive: receive)
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
  public func unsubscribe(_ subscriber: any AnyStoreSubscriber) {
    _engine.removeSubscription(of: ObjectIdentifier(subscriber))
  }
}

extension Store {
  /// The subscriptions counted as standing and the entries the registry keeps; for the
  /// package's tests.
  package var _subscriptionCounts: (standing: Int, registered: Int) {
    _engine.any.subscriptionCounts
  }
}
