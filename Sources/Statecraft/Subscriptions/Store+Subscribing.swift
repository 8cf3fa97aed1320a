// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

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
  /// selection that passes the filters, newest first: never an older state after a newer one.
  /// When the selected type is `Equatable` and the store skips repeats automatically (the
  /// default), a selection equal to the previous one is skipped; this holds in generic code too.
  /// A selection of another type is delivered for every committed state unless a filter such as
  /// ``Subscription/skipRepeats(_:)`` follows it; debug builds warn once when subscribing.
  ///
  /// > Important: Subscribing an object that is already subscribed replaces its subscription and
  /// > moves it to the end of the notification order.
  ///
  /// Because the store holds the subscriber weakly, each `newState` call first reads that weak
  /// reference, a little more than a closure subscription (``subscribe(_:receive:)-2xaid``)
  /// costs. A selection skipped as a repeat costs the same in both forms.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify. The store holds it weakly.
  ///   - transform: Builds the subscription from one of the whole state.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    transform: (Subscription<State>) -> Subscription<SelectedState>
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    connect(subscriber, transform, repeats: dynamicEquality(of: SelectedState.self))
  }

  /// Subscribes an object to an `Equatable` selection of the state.
  ///
  /// Behaves as the overload for any selection; chosen when the selected type is known to be
  /// `Equatable`, so that skipping repeats compares with the type's own `==`.
  ///
  /// - Parameters:
  ///   - subscriber: The object to notify. The store holds it weakly.
  ///   - transform: Builds the subscription from one of the whole state.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<SelectedState: Equatable, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    transform: (Subscription<State>) -> Subscription<SelectedState>
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    connect(subscriber, transform, repeats: { $0 == $1 })
  }

  /// The one path of every `subscribe`: builds the subscription from `transform`, adds
  /// skip-repeats with `repeats` when the store skips repeats automatically, and ends it in
  /// `receive`, the status's `hold`.
  ///
  /// Returns the first step, which the store feeds.
  @MainActor
  @inlinable
  func makeSubscription<SelectedState>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?,
    receive: @escaping (SelectedState) -> Void
  ) -> SubscriptionRelay<State> {
    let relay = SubscriptionRelay<State>()
    var selection = transform(relay.subscription)
    if _core._automaticallySkipsRepeats, let repeats {
      selection = selection._skipEqual(repeats)
    }
    #if DEBUG
      if _core._automaticallySkipsRepeats, repeats == nil, !selection._isFiltered,
        SelectedState.self != State.self
      {
        StatecraftDiagnostics.warnEverySelection(of: SelectedState.self)
      }
    #endif
    selection._attach(receive)
    return relay
  }

  @MainActor
  @inlinable
  func connect<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    let status = SubscriberStatus(subscriber)
    let relay = makeSubscription(transform, repeats: repeats) { status.hold($0) }
    _core.register(
      relay, status: status, deliverHeld: { status.deliverHeld() },
      owner: ObjectIdentifier(subscriber))
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
  /// ``subscribe(_:transform:)-94h10``.
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
    let status = SubscriptionStatus()
    let receiver = ClosureReceiver(status: status, receive: receive)
    let relay = makeSubscription(
      transform, repeats: dynamicEquality(of: SelectedState.self), receive: { receiver.hold($0) })
    return _core.registerToken(relay, status: status, deliverHeld: { receiver.deliverHeld() })
  }

  /// Subscribes a closure to an `Equatable` selection of the state.
  ///
  /// Behaves as the overload for any selection; chosen when the selected type is known to be
  /// `Equatable`, so that skipping repeats compares with the type's own `==`.
  ///
  /// - Parameters:
  ///   - transform: Builds the subscription from one of the whole state.
  ///   - receive: Called on the main actor with the current selection at once, then with each
  ///     committed state's selection that passes the filters.
  /// - Returns: The token that keeps the subscription alive.
  /// - Complexity: O(1) amortized, plus the cost of delivering the first value.
  @preconcurrency @MainActor
  @inlinable
  public func subscribe<SelectedState: Equatable>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    receive: @escaping @MainActor (SelectedState) -> Void
  ) -> SubscriptionToken {
    let status = SubscriptionStatus()
    let receiver = ClosureReceiver(status: status, receive: receive)
    let relay = makeSubscription(transform, repeats: { $0 == $1 }, receive: { receiver.hold($0) })
    return _core.registerToken(relay, status: status, deliverHeld: { receiver.deliverHeld() })
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
    _core.removeSubscription(of: ObjectIdentifier(subscriber))
  }
}

extension Store {
  /// The subscriptions counted as standing and the entries the registry keeps; for the
  /// package's tests.
  package var _subscriptionCounts: (standing: Int, registered: Int) {
    _core.subscriptionCounts
  }
}
