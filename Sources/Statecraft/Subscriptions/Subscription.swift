import StatecraftPrimitives

/// A description of which values a subscriber receives: what to select from the state and which
/// changes to skip.
///
/// You get a `Subscription` of the store's whole state in the `transform` closure of
/// ``Store/subscribe(_:transform:)`` and return a narrower one, built with ReSwift's vocabulary:
///
/// ```swift
/// mainStore.subscribe(self) { subscription in
///   subscription
///     .select(\.films)
///     .skip(when: { old, new in old.count == new.count })
/// }
/// ```
///
/// Each step sees the values of the step before it. The filters compare a value with the
/// previous value *that step saw*; the first value always passes, so a new subscriber always
/// receives the current selection.
///
/// A subscription is built and used on the main actor only, so its closures need not be
/// `Sendable`.
///
/// Selectors and filters run while the store holds its state lock, so that a commit from another
/// thread meanwhile never finds the state shared and copies it; the subscriber is called after
/// the lock is released. Keep them pure functions of the values they are given: one that calls
/// the store stops the program with a message. Keep them short, too: a dispatch from another
/// thread waits for them. Rounds for other threads' commits run at most once a millisecond, so
/// even a selector that reads every element of a large state leaves background dispatches about
/// as fast as one that reads one element (Benchmarks/README.md, workload l); share work that
/// expensive between subscribers with a ``MemoizedSelector``. Select a part of the state rather than all of it
/// where you can: a subscription of the whole state keeps the last one (to skip repeats), and the
/// next commit then copies it.
public struct Subscription<State> {
  // The methods are @inlinable so that the closures they build are specialized for the app's
  // concrete types: unspecialized, each step would look up generic metadata on every
  // notification.

  /// Installs `downstream` as the receiver of this step's values.
  @usableFromInline let _attach: (_ downstream: @escaping (State) -> Void) -> Void
  /// Set when this step is a `select`: builds `select` followed by `skip(when:)` as one step,
  /// which saves a call and an allocation per subscription (the common `select` + automatic
  /// skip-repeats).
  @usableFromInline var _selectThenSkip:
    ((_ skip: @escaping (State, State) -> Bool) -> Subscription<State>)?
  /// Set when this step selects with a memoized selector: builds it followed by skipping values
  /// equal to the previous one as one step that knows an unchanged computation is a repeat.
  @usableFromInline var _selectThenSkipEqual:
    ((_ isEqual: @escaping (State, State) -> Bool) -> Subscription<State>)?
  /// Whether this step filters the values it passes on (`skip(when:)` and the steps built on
  /// it), so that a subscriber of a type that is not `Equatable` still skips repeats.
  @usableFromInline var _isFiltered = false

  @usableFromInline
  init(attach: @escaping (_ downstream: @escaping (State) -> Void) -> Void) {
    self._attach = attach
    self._selectThenSkip = nil
    self._selectThenSkipEqual = nil
  }

  /// Creates a subscription from a function that sends it values: ReSwift's way to write a
  /// custom operator.
  ///
  /// `sink` is called once, when the subscription is connected to a subscriber, with the
  /// function that sends a value on (the value before it, and the new one). With ``observer``,
  /// an operator reads the values of the subscription it extends:
  ///
  /// ```swift
  /// extension Subscription {
  ///   func onlyEven() -> Subscription<State> where State == Int {
  ///     Subscription { sink in
  ///       self.observer = { old, new in
  ///         if new.isMultiple(of: 2) { sink(old, new) }
  ///       }
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter sink: Receives the function that sends values over the new subscription.
  /// - Complexity: O(1) to build; the function runs once per value sent.
  @inlinable
  public init(sink: @escaping (_ sink: @escaping (_ old: State?, _ new: State) -> Void) -> Void) {
    self.init { downstream in
      sink { _, new in downstream(new) }
    }
  }

  /// The closure called with each value this subscription delivers and the value before it
  /// (`nil` for the first): setting it connects it, as ReSwift's custom operators do.
  ///
  /// Reading it gives `nil`: the subscription keeps no closure of its own, it hands each one set
  /// to the step before. Set it once, in the `sink` function of ``init(sink:)``.
  ///
  /// - Complexity: O(1) to set; the closure runs once per value.
  @inlinable
  public var observer: ((_ old: State?, _ new: State) -> Void)? {
    get { nil }
    nonmutating set {
      guard let observer = newValue else { return }
      let previous = PreviousValue<State>.make()
      _attach { new in observer(previous.exchange(new), new) }
    }
  }

  /// Skips a value that `isEqual`, an equality, says equals the previous one.
  @inlinable
  func _skipEqual(_ isEqual: @escaping (State, State) -> Bool) -> Subscription<State> {
    if let _selectThenSkipEqual { return _selectThenSkipEqual(isEqual) }
    return skip(when: isEqual)
  }

  /// Selects a part of the state with a closure.
  ///
  /// - Parameter selector: A function from this step's value to the part the subscriber wants.
  /// - Returns: A subscription that delivers the selected part.
  /// - Complexity: O(1) to build; the selector runs once per delivered state.
  @inlinable public func select<Substate>(
    _ selector: @escaping (State) -> Substate
  ) -> Subscription<Substate> {
    var selection = Subscription<Substate> { downstream in
      self._attach { downstream(selector($0)) }
    }
    selection._selectThenSkip = { predicate in
      Subscription<Substate> { downstream in
        let previous = PreviousValue<Substate>.make()
        self._attach { state in
          let new = selector(state)
          if let old = previous.exchange(new), predicate(old, new) { return }
          downstream(new)
        }
      }
    }
    return selection
  }

  /// Selects a part of the state with a key path.
  ///
  /// A key path literal such as `\.films` uses the closure form of `select` instead (a key
  /// path literal converts to a function), where the compiler turns it into a direct property
  /// read; this overload serves key paths held in variables, which are applied at run time.
  ///
  /// - Parameter keyPath: The key path of the part the subscriber wants.
  /// - Returns: A subscription that delivers the selected part.
  /// - Complexity: O(1) to build; the key path is applied once per delivered state.
  @_disfavoredOverload
  @inlinable public func select<Substate>(_ keyPath: KeyPath<State, Substate>) -> Subscription<
    Substate
  > {
    Subscription<Substate> { downstream in
      self._attach { downstream($0[keyPath: keyPath]) }
    }
  }

  /// Skips a value when `isRepeat` says it repeats the previous one.
  ///
  /// - Parameter isRepeat: Returns `true` when the new value (second argument) should be
  ///   skipped because it repeats the old one (first argument).
  /// - Returns: A subscription that delivers only values that are not repeats.
  /// - Complexity: O(1) to build; `isRepeat` runs once per value this step sees.
  @inlinable public func skipRepeats(_ isRepeat: @escaping (_ old: State, _ new: State) -> Bool)
    -> Subscription<State>
  {
    skip(when: isRepeat)
  }

  /// Skips a value when `predicate` returns `true` for the previous value and the new one.
  ///
  /// - Parameter predicate: Called with the previous value this step saw and the new one.
  /// - Returns: A subscription that delivers the values the predicate does not skip.
  /// - Complexity: O(1) to build; the predicate runs once per value this step sees.
  @inlinable public func skip(when predicate: @escaping (_ old: State, _ new: State) -> Bool)
    -> Subscription<State>
  {
    var filtered =
      _selectThenSkip?(predicate)
      ?? Subscription { downstream in
        let previous = PreviousValue<State>.make()
        self._attach { new in
          if let old = previous.exchange(new), predicate(old, new) { return }
          downstream(new)
        }
      }
    filtered._isFiltered = true
    return filtered
  }

  /// Delivers a value only when `predicate` returns `true` for the previous value and the new
  /// one.
  ///
  /// - Parameter predicate: Called with the previous value this step saw and the new one.
  /// - Returns: A subscription that delivers only the values the predicate accepts.
  /// - Complexity: O(1) to build; the predicate runs once per value this step sees.
  @inlinable public func only(when predicate: @escaping (_ old: State, _ new: State) -> Bool)
    -> Subscription<State>
  {
    skip(when: { !predicate($0, $1) })
  }
}

extension Subscription where State: Equatable {
  /// Skips a value equal to the previous one.
  ///
  /// A store created with `automaticallySkipsRepeats: true` (the default) adds this step to
  /// every subscription whose selected value is `Equatable`.
  ///
  /// - Returns: A subscription that delivers only changed values.
  /// - Complexity: O(1) to build; one `==` per value this step sees.
  @inlinable public func skipRepeats() -> Subscription<State> {
    _skipEqual { $0 == $1 }
  }
}

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
    connect(subscriber, { $0 }, repeats: dynamicEquality(of: State.self))
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

  /// The one path of every `subscribe`: builds the subscription from `transform`, adds
  /// skip-repeats with `repeats` when the store skips repeats automatically, ends it in
  /// `receive`, the receiver's `hold`, and keeps the composed steps in `entry`, which the store
  /// feeds.
  @MainActor
  @inlinable
  func makeSubscription<SelectedState>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?,
    into entry: SubscriptionEntry<State>,
    receive: @escaping (SelectedState) -> Void
  ) {
    var selection = transform(Subscription { entry._receive = $0 })
    if _engine.any.automaticallySkipsRepeats, let repeats {
      selection = selection._skipEqual(repeats)
    }
    #if DEBUG
      if _engine.any.automaticallySkipsRepeats, repeats == nil, !selection._isFiltered,
        SelectedState.self != State.self
      {
        StatecraftDiagnostics.warnEverySelection(of: SelectedState.self)
      }
    #endif
    selection._attach(receive)
  }

  @MainActor
  @inlinable
  func connect<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    let status = SubscriptionStatus()
    let receiver = SubscriberReceiver(subscriber, status: status)
    let entry = SubscriptionEntry<State>(
      owner: ObjectIdentifier(subscriber), status: status,
      deliverHeld: { receiver.deliverHeld() })
    makeSubscription(transform, repeats: repeats, into: entry) { receiver.hold($0) }
    _engine.any.register(entry)
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

  /// The one path of the closure `subscribe` overloads, as `connect(_:_:repeats:)` is of the
  /// object ones.
  @MainActor
  @inlinable
  func connect<SelectedState>(
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?,
    receive: @escaping @MainActor (SelectedState) -> Void
  ) -> SubscriptionToken {
    let status = SubscriptionStatus()
    let receiver = ClosureReceiver(status: status, receive: receive)
    let entry = SubscriptionEntry<State>(
      owner: nil, status: status, deliverHeld: { receiver.deliverHeld() })
    makeSubscription(transform, repeats: repeats, into: entry, receive: { receiver.hold($0) })
    return _engine.any.registerToken(entry)
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
    _engine.any.removeSubscription(of: ObjectIdentifier(subscriber))
  }
}

extension Store {
  /// The subscriptions counted as standing and the entries the registry keeps; for the
  /// package's tests.
  package var _subscriptionCounts: (standing: Int, registered: Int) {
    _engine.any.subscriptionCounts
  }
}
