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
  /// `_isFiltered` and `_rootSkipsRepeats`, in one byte: a stored field more makes the compiler
  /// copy the whole struct through its generic value witnesses on every subscribe.
  @usableFromInline var _marks: UInt8 = 0
  /// Set on the subscription `subscribe` starts from: names its entry.
  @usableFromInline var _root: ObjectIdentifier?
  /// Set when this step is a `select` of the subscription `subscribe` starts from: its entry,
  /// and the `SelectSource`, whose selector a subscriber object's entry then runs itself.
  @usableFromInline var _rootSelection: (root: ObjectIdentifier, source: AnyObject)?

  /// Whether this step filters the values it passes on (`skip(when:)` and the steps built on
  /// it), so that a subscriber of a type that is not `Equatable` still skips repeats.
  @inlinable
  var _isFiltered: Bool {
    get { _marks & 1 != 0 }
    set { _marks = newValue ? _marks | 1 : _marks & ~1 }
  }

  /// Whether this step is `skipRepeats()` right after a `select` of the subscription `subscribe`
  /// starts from, ReSwift's usual shape: the entry then runs the `select` and the type's `==`
  /// itself.
  @inlinable
  var _rootSkipsRepeats: Bool {
    get { _marks & 2 != 0 }
    set { _marks = newValue ? _marks | 2 : _marks & ~2 }
  }

  @usableFromInline
  init(attach: @escaping (_ downstream: @escaping (State) -> Void) -> Void) {
    self._attach = attach
    self._selectThenSkip = nil
    self._selectThenSkipEqual = nil
  }

  /// The subscription `subscribe` starts from, whose steps `entry` runs.
  @inlinable
  init(root entry: SubscriptionEntry<State>) where State: Sendable {
    self.init(attach: { downstream in
      entry._steps = StepsCall(downstream)
    })
    _root = ObjectIdentifier(entry)
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
    if let _root { selection._rootSelection = (_root, source) }
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
    var filtered = _skipEqual { $0 == $1 }
    if _selectThenSkip != nil, let _rootSelection {  // a `select` of the root
      filtered._rootSelection = _rootSelection
      filtered._rootSkipsRepeats = true
    }
    return filtered
  }
}

// MARK: Connecting a subscription's steps to its subscriber

extension Store {
  /// The equality that ends `selection` when the store skips repeats automatically: `repeats`,
  /// the selected type's `==`; `nil` when the store does not, or the type has none.
  @MainActor
  @inlinable
  func automaticRepeats<SelectedState>(
    of selection: Subscription<SelectedState>,
    _ repeats: ((SelectedState, SelectedState) -> Bool)?
  ) -> ((SelectedState, SelectedState) -> Bool)? {
    guard _engine.any.automaticallySkipsRepeats else { return nil }
    #if DEBUG
      if repeats == nil, !selection._isFiltered, SelectedState.self != State.self {
        StatecraftDiagnostics.warnEverySelection(of: SelectedState.self)
      }
    #endif
    return repeats
  }

  /// The steps `make` builds for a `select` of a subscription's root, with the equality its
  /// entry runs: the store's automatic skip-repeats, else `skipRepeats()`'s, else none.
  ///
  /// `make` takes the equality, not this function's result: a closure returned through a
  /// generic function, as through `??`, is called through two thunks.
  @MainActor
  @inlinable
  func selectingSteps<SelectedState, Steps>(
    of selection: Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?,
    _ make: (_ isRepeat: @escaping (SelectedState, SelectedState) -> Bool) -> Steps
  ) -> Steps {
    if let isRepeat = automaticRepeats(of: selection, repeats) { return make(isRepeat) }
    if selection._rootSkipsRepeats, let repeats { return make(repeats) }
    return make { _, _ in false }
  }

  /// Ends the steps of `selection`, built on `entry`'s root, in `receive`, the receiver's
  /// `hold`, after the store's automatic skip-repeats with `repeats`.
  @MainActor
  @inlinable
  func attach<SelectedState>(
    _ selection: Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?,
    receive: @escaping (SelectedState) -> Void
  ) {
    var selection = selection
    if let repeats = automaticRepeats(of: selection, repeats) {
      selection = selection._skipEqual(repeats)
    }
    selection._attach(receive)
  }

  /// The one path of the object `subscribe` overloads that take a `transform`.
  ///
  /// A `select` of the state, the usual shape, is run by the entry itself; the steps of any
  /// other subscription are attached to it.
  @MainActor
  @inlinable
  func connect<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber,
    _ transform: (Subscription<State>) -> Subscription<SelectedState>,
    repeats: ((SelectedState, SelectedState) -> Bool)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    let entry = SubscriberEntry<State, Subscriber, SelectedState?>(subscriber)
    let selection = transform(Subscription(root: entry))
    if let (root, source) = selection._rootSelection, root == ObjectIdentifier(entry),
      !selection._rootSkipsRepeats || repeats != nil
    {
      // Made by `select` on `entry`'s root, a `Subscription<State>`, as a
      // `Subscription<SelectedState>`; then `skipRepeats()`, maybe, which the store's automatic
      // skip after it adds nothing to, and which `repeats` is then.
      let source = knownObject(source, as: SelectSource<State, SelectedState>.self)
      entry._steps = selectingSteps(of: selection, repeats: repeats) {
        SelectingSteps<State, SelectedState?>(select: source._selector, isRepeat: $0)
      }
    } else {
      let receiver = SubscriberReceiver<Subscriber, HeldValues<SelectedState>>(subscriber)
      attach(selection, repeats: repeats) { receiver.hold($0) }
      entry.deliverThroughReceiver { receiver.deliverHeld($0) }
    }
    _engine.register(entry)
  }

  /// Registers a subscriber object's subscription that runs `select` and skips a value that
  /// `isRepeat` says repeats the last one.
  @MainActor
  @inlinable
  func connect<SelectedState, Subscriber: StoreSubscriber>(
    _ subscriber: Subscriber, select: @escaping (State) -> SelectedState,
    skipping isRepeat: ((SelectedState, SelectedState) -> Bool)?
  ) where Subscriber.StoreSubscriberStateType == SelectedState {
    let entry = SubscriberEntry<State, Subscriber, SelectedState?>(subscriber)
    // Not `??`, as above.
    let steps =
      if let isRepeat {
        SelectingSteps<State, SelectedState?>(select: select, isRepeat: isRepeat)
      } else {
        SelectingSteps<State, SelectedState?>(select: select, isRepeat: { _, _ in false })
      }
    entry._steps = steps
    _engine.register(entry)
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
    let entry = SelectingEntry<State, SelectedState?>()
    let selection = transform(Subscription(root: entry))
    if let (root, source) = selection._rootSelection, root == ObjectIdentifier(entry),
      !selection._rootSkipsRepeats || repeats != nil
    {
      // As in the object `connect`.
      let source = knownObject(source, as: SelectSource<State, SelectedState>.self)
      entry._steps = selectingSteps(of: selection, repeats: repeats) {
        ReceivingSteps<State, SelectedState?>(
          select: source._selector, isRepeat: $0, receive: receive)
      }
    } else {
      let receiver = ClosureReceiver<HeldValues<SelectedState>>(receive: receive)
      attach(selection, repeats: repeats) { receiver.hold($0) }
      entry.deliverThroughReceiver { _ in receiver.deliverHeld() }
    }
    return _engine.registerToken(entry)
  }
}
