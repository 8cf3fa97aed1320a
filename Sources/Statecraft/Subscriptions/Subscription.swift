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
    let source = SelectSource(attach: _attach, selector: selector)
    var selection = Subscription<Substate> { source.attach($0) }
    selection._selectThenSkip = { source.thenSkip($0) }
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
        let step = SkippingStep<State, State?>(
          select: { $0 }, isRepeat: predicate, downstream: downstream)
        self._attach { step.receive($0) }
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

// MARK: Connecting a subscription's steps to its subscriber

extension Store {
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
    let receiver = SubscriberReceiver<Subscriber, HeldValues<SelectedState>>(
      subscriber, status: status)
    let entry = SubscriptionEntry<State>(
      owner: ObjectIdentifier(subscriber), status: status,
      deliverHeld: { receiver.deliverHeld() })
    makeSubscription(transform, repeats: repeats, into: entry) { receiver.hold($0) }
    _engine.any.register(entry)
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
    let receiver = ClosureReceiver<HeldValues<SelectedState>>(status: status, receive: receive)
    let entry = SubscriptionEntry<State>(
      owner: nil, status: status, deliverHeld: { receiver.deliverHeld() })
    makeSubscription(transform, repeats: repeats, into: entry, receive: { receiver.hold($0) })
    return _engine.any.registerToken(entry)
  }
}

/// A step that selects a value from each value it receives and passes it on unless it repeats
/// the one selected before: `select` followed by `skip(when:)`, the steps most subscriptions
/// have, and `skip(when:)` alone (selecting the value itself).
///
/// One object holds the closures and the value the step saw last, and the step's closure
/// captures only the object, so that it needs no context of its own: one allocation per step.
/// The closures are constants, called without retaining them. The class is generic over the
/// optional of the selected value (`Previous` is `Value?`), so that freeing it destroys that
/// value with the type's own functions: a class generic over `Value` would look
/// `Optional<Value>` up at run time to free its field. Only the main actor touches it.
@usableFromInline
final class SkippingStep<Input, Previous: PreviousSlot> {
  @usableFromInline let _select: (Input) -> Previous.Value
  @usableFromInline let _isRepeat: (Previous.Value, Previous.Value) -> Bool
  @usableFromInline let _downstream: (Previous.Value) -> Void
  // Unchecked: touched only by `receive`, on the main actor, which never overlaps itself for one
  // step; a checked access costs more than the comparison.
  @exclusivity(unchecked) @usableFromInline var _previous: Previous

  @usableFromInline
  init(
    select: @escaping (Input) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool,
    downstream: @escaping (Previous.Value) -> Void
  ) {
    _select = select
    _isRepeat = isRepeat
    _downstream = downstream
    _previous = .none
  }

  /// Selects from `input`, keeps the value, and passes it on unless it repeats the last one.
  @inlinable
  func receive(_ input: Input) {
    let new = _select(input)
    var old = Previous(new)
    swap(&old, &_previous)
    if let old = old.slotValue, _isRepeat(old, new) { return }
    _downstream(new)
  }
}

/// `Optional`, as ``SkippingStep``'s type of the value it saw last.
@usableFromInline
protocol PreviousSlot {
  associatedtype Value
  /// No value yet.
  static var none: Self { get }
  init(_ value: Value)
  var slotValue: Value? { get }
}

extension Optional: PreviousSlot {
  @inlinable
  var slotValue: Wrapped? { self }
}

/// What a `select` builds from: the step before it and the selector, in one object, which the
/// closures of the subscription it returns capture alone, so that they need no context.
@usableFromInline
final class SelectSource<State, Substate> {
  @usableFromInline let _attach: (_ downstream: @escaping (State) -> Void) -> Void
  @usableFromInline let _selector: (State) -> Substate

  @usableFromInline
  init(
    attach: @escaping (_ downstream: @escaping (State) -> Void) -> Void,
    selector: @escaping (State) -> Substate
  ) {
    _attach = attach
    _selector = selector
  }

  @inlinable
  func attach(_ downstream: @escaping (Substate) -> Void) {
    let selector = _selector
    _attach { downstream(selector($0)) }
  }

  /// The selection followed by `skip(when: isRepeat)`, as one step.
  @inlinable
  func thenSkip(_ isRepeat: @escaping (Substate, Substate) -> Bool) -> Subscription<Substate> {
    Subscription<Substate> { [self] downstream in
      let step = SkippingStep<State, Substate?>(
        select: _selector, isRepeat: isRepeat, downstream: downstream)
      _attach { step.receive($0) }
    }
  }
}
