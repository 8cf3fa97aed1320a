import Dispatch
import StatecraftAtomics
import StatecraftPrimitives

// What a subscription is to the registry and the rounds: an entry, with the two calls of a
// round's phases (Delivery.swift). The shape most subscriptions have, one `select` of the state,
// is one `SelectingEntry`; any other is built from steps (Subscriptions/Steps.swift), the first
// of which runs in a `StepsCall`. What subscribing and removal do to an entry is in
// Registration.swift.

/// Whether a subscription still delivers, and from which version of the state: the root class
/// of its entry, which a closure subscription's token also holds.
///
/// Not an allocation of its own: one word, the object's first stored property, reached only
/// atomically (`AtomicWord(firstStoredPropertyOf:)`). A subscriber object's last step is handed
/// it with the delivery call, to mark the subscription gone when it finds the subscriber
/// deallocated; the token holds it strongly, and a registry that goes drops its entries' steps,
/// so that the user's closures go with the store.
@MainActor
@usableFromInline
class SubscriptionStatus: Sendable {
  // Reached only through `_flags`, atomically: never read or written here after `init`.
  nonisolated(unsafe) private final var _flagsStorage: UInt64

  @usableFromInline
  nonisolated init() {
    _flagsStorage = 0x5CA1_AB1E
    assert(
      _flags.load(ordering: .relaxed) == 0x5CA1_AB1E, "the flags word is the first stored property")
    _flagsStorage = SubscriptionStatus.active
  }

  /// Names the subscription, for the registry and the token.
  @inlinable
  nonisolated final var identity: ObjectIdentifier { ObjectIdentifier(self) }

  /// Whether the subscription still delivers (bit 0), whether the registry counted it removed
  /// (bit 1), and above them the version of the state delivered on subscribing.
  ///
  /// The active bit is cleared by removal (any thread) or when the subscriber is found
  /// deallocated, and checked just before each delivery, so removal during a notification round
  /// takes effect at once. The removed bit is set under the bookkeeping lock. The start version
  /// is written before the entry is shared or on the main queue, and read only there, in the
  /// same load as the active bit: later deliveries must be newer.
  @inlinable
  nonisolated final var _flags: AtomicWord<UInt64> { AtomicWord(firstStoredPropertyOf: self) }

  @inlinable
  nonisolated static var active: UInt64 { 1 }

  @inlinable
  nonisolated static var removed: UInt64 { 2 }

  @inlinable
  nonisolated final func isActive(_ ordering: AtomicOrdering) -> Bool {
    _flags.load(ordering: ordering) & SubscriptionStatus.active != 0
  }

  @inlinable
  nonisolated final var isRemoved: Bool {
    _flags.load(ordering: .relaxed) & SubscriptionStatus.removed != 0
  }

  @usableFromInline
  nonisolated final func markGone() {
    _flags.clearBits(SubscriptionStatus.active, ordering: .releasing)
  }
}

/// One subscription, as the registry keeps it and a round feeds it: its status, the identity it is
/// registered under, and what a round's two phases call: its steps (``EntrySteps``) and its
/// delivery.
///
/// The calls are closures made where the app's types are concrete, so that they run specialized:
/// a subclass's method called through the class's table would run generic, looking its types up
/// at run time. A subscription is a ``SelectingEntry`` (a ``SubscriberEntry`` for a subscriber
/// object): one `select` of the state runs in its ``SelectingSteps``; a subscription built from
/// other steps (Steps.swift) runs those, the first of them in a `StepsCall`. A scope's node in its
/// root is an entry of this class, with steps and a delivery of its own.
@MainActor
@usableFromInline
class SubscriptionEntry<State: Sendable>: SubscriptionStatus {
  /// Names the subscription in the registry: the subscriber object's identity, for
  /// `unsubscribe(_:)`, or for a subscription without one (a closure subscription, a scope's
  /// node) the entry's own, by which its token or its scope names it.
  ///
  /// Written only by `init`, which can name the entry once it exists. One word, not an optional
  /// owner beside the entry's identity, which takes two: a subscriber's entry then fits the next
  /// smaller size of allocation (Benchmarks/README.md, row g).
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) final private(set) var key:
    ObjectIdentifier
  /// What the subscription runs on each state, in a round's first phase (under the state lock)
  /// and in `deliverInitial`: its steps, whose call returns whether they kept a value for the
  /// subscriber. Kept here, and borrowed by a round, which so retains nothing per subscription.
  ///
  /// `nil` once the subscription is removed, and the subclass's steps dropped, so that the user's
  /// closures go at once although the entry stays until the registry compacts.
  // nonisolated(unsafe): read and written only on the main queue; see `select`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) final var _steps: EntrySteps<State>?
  /// Hands what the steps kept to the subscriber, in a round's second phase, and in
  /// `deliverInitial`: called with this entry.
  ///
  /// A constant, made where the app's types are concrete and passed to `init`, so that a round
  /// calls it retaining nothing. It captures nothing that must go with the subscription: what
  /// it needs beyond the entry it reaches through `_steps`, and it retains the closure it calls
  /// there (a closure subscription's, a receiver's delivery) while it runs, since the subscriber
  /// may end the subscription, which drops the steps.
  // nonisolated(unsafe): called only on the main queue, as `select`.
  @usableFromInline nonisolated(unsafe) final let _deliver: (SubscriptionEntry<State>) -> Void

  /// The address of `_steps`, for a call that borrows them.
  @inlinable
  nonisolated final var _stepsAddress: UInt? {
    guard let steps = _steps else { return nil }
    return address(of: steps)
  }

  /// Makes an entry whose steps are set when they are built: by a `select` of the state
  /// (``SelectingEntry``), else by the first of the steps (`Subscription.init(root:)`).
  @usableFromInline
  nonisolated init(owner: ObjectIdentifier?, deliver: @escaping (SubscriptionEntry<State>) -> Void)
  {
    _deliver = deliver
    key = owner ?? ObjectIdentifier(SubscriptionStatus.self)  // until the entry exists
    super.init()
    if owner == nil { key = identity }
  }

  /// Drops what a subclass keeps of the user's values, once the calls are dropped.
  @usableFromInline
  nonisolated func dropSteps() {}

  /// A round's first phase: runs the steps on the state committed as `version`, unless this
  /// subscription already has it or is no longer active.
  ///
  /// Returns whether the second phase has work here: a value the steps held for the subscriber,
  /// or a subscription found gone that is still registered.
  ///
  /// Called only by the main loop, on the main queue. Nonisolated so that the loop can call it
  /// through an unretained reference from a `@Sendable` closure: a closure isolated to the main
  /// actor is checked at run time on every call. Always inlined, as `withObject` is, so that
  /// where the pass runs unspecialized (a batch's round, a scope's) no generic type is looked up
  /// per subscription.
  @inlinable @inline(__always)
  nonisolated final func select(_ state: inout State, version: UInt64) -> Bool {
    assert(MainQueue.isCurrent, "a subscription delivers only on the main queue")
    let flags = _flags.load(ordering: .acquiring)
    if flags & SubscriptionStatus.active != 0 {
      guard version > flags >> 2 else { return false }
      guard let steps = _stepsAddress else { return false }
      // Borrowed: only `releaseSteps` drops the steps, and it waits while a round selects.
      return withObject(at: steps, as: EntrySteps<State>.self) { $0._run($0, self, &state) }
    }
    return flags & SubscriptionStatus.removed == 0
  }

  /// A round's second phase: hands the value the first phase held to the subscriber, outside the
  /// state lock.
  ///
  /// Returns `false` if the subscription turned out to be gone.
  @inlinable
  nonisolated final func deliverHeld() -> Bool {
    if isActive(.acquiring) {
      _deliver(self)
      if isActive(.relaxed) { return true }
    }
    return isRemoved
  }

}

/// A subscription that keeps the value it hands over: one `select` of the state, skipping a value
/// its equality says repeats the last one (the shape of most subscriptions).
///
/// Its ``SelectingSteps`` keep here the value they selected last; that is also the value a
/// round's second phase hands over, since a `select` followed by a skip passes on at most one
/// value a state. A closure subscription's entry is this class, a subscriber object's a
/// ``SubscriberEntry``; built from other steps, either keeps nothing here. Used only on the main
/// queue.
@usableFromInline
class SelectingEntry<State: Sendable, Previous: PreviousSlot>: SubscriptionEntry<State> {
  // Unchecked, and nonisolated(unsafe): touched only on the main queue, by a round's phases, which
  // never overlap for one entry, and by `dropSteps` after them.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) final var _previous: Previous

  @usableFromInline
  override nonisolated init(
    owner: ObjectIdentifier?, deliver: @escaping (SubscriptionEntry<State>) -> Void
  ) {
    _previous = .none
    super.init(owner: owner, deliver: deliver)
  }

  @usableFromInline
  override nonisolated func dropSteps() {
    _previous = .none
  }
}

/// A subscriber object's ``SelectingEntry``: it holds the subscriber weakly.
@usableFromInline
final class SubscriberEntry<State: Sendable, Subscriber: StoreSubscriber, Previous: PreviousSlot>:
  SelectingEntry<State, Previous>
where Previous.Value == Subscriber.StoreSubscriberStateType {
  @usableFromInline nonisolated(unsafe) weak let _subscriber: Subscriber?

  @usableFromInline
  init(_ subscriber: Subscriber, deliver: @escaping (SubscriptionEntry<State>) -> Void) {
    _subscriber = subscriber
    super.init(owner: ObjectIdentifier(subscriber), deliver: deliver)
  }

  @inlinable
  convenience init(_ subscriber: Subscriber) {
    self.init(subscriber, deliver: { knownObject($0, as: SubscriberEntry.self).deliver() })
  }

  /// Hands the value selected last to the subscriber, or marks the subscription gone if the
  /// subscriber was deallocated; for a subscription built from steps, has their receiver hand
  /// over what it holds.
  @MainActor
  @inlinable
  func deliver() {
    if let value = _previous.slotValue {
      guard let subscriber = _subscriber else {
        markGone()
        return
      }
      subscriber.newState(state: value)
    } else {
      StepsCall.deliverHeld(to: self)
    }
  }
}

/// `Optional`, as the type of the value a step saw last (``SelectingEntry``, `SkippingStep`).
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

/// What a ``SelectingEntry`` runs on each state: its selector, and the equality that says a
/// value repeats the last one.
///
/// The entry's steps: its call, made for the app's types, reads the closures from the object and
/// calls them without retaining them, since they are constants. Dropped on removal. The call is
/// handed the entry, where it keeps the value: no reference to it here.
@usableFromInline
class SelectingSteps<State: Sendable, Previous: PreviousSlot>: EntrySteps<State> {
  @usableFromInline final let _select: (State) -> Previous.Value
  @usableFromInline final let _isRepeat: (Previous.Value, Previous.Value) -> Bool

  @usableFromInline
  init(
    select: @escaping (State) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool,
    run: @escaping (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool
  ) {
    _select = select
    _isRepeat = isRepeat
    super.init(run: run)
  }

  @inlinable
  convenience init(
    select: @escaping (State) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool
  ) {
    self.init(select: select, isRepeat: isRepeat, run: SelectingSteps.run)
  }

  /// The steps' call, made here for the app's types: `receive`.
  @inlinable
  static var run: (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool {
    {
      knownObject($0, as: SelectingSteps.self).receive(
        &$2, into: knownObject($1, as: SelectingEntry<State, Previous>.self))
    }
  }

  /// Selects from `state` and keeps the value in `entry`; returns whether the value is for the
  /// subscriber: whether it does not repeat the last one.
  ///
  /// Inlined into the steps' call, which then makes one call, not two.
  @inline(__always) @inlinable
  final func receive(_ state: inout State, into entry: SelectingEntry<State, Previous>) -> Bool {
    let new = _select(state)
    var old = Previous(new)
    swap(&old, &entry._previous)
    if let old = old.slotValue, _isRepeat(old, new) { return false }
    return true
  }
}

/// What a subscription's entry runs on each state: an object whose call is a constant, made where
/// the app's types are concrete and passed to `init`, so that a round borrows the object and
/// calls it retaining nothing.
@usableFromInline
class EntrySteps<State: Sendable> {
  /// Called with the object itself.
  ///
  /// The state is `inout` only so that it passes by address: no step changes it. Passed as a
  /// value, through a closure stored in a generic class, a state with a reference in it was
  /// copied into a new temporary for each subscription, then copied again in pieces of another
  /// size, a read the processor cannot forward from the writes before it (Benchmarks/README.md,
  /// row c). By address, every subscription's steps read the one copy their round made.
  @usableFromInline final let _run:
    (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool

  @usableFromInline
  init(run: @escaping (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool) {
    _run = run
  }
}

/// Steps that are one closure: the first of a subscription built from steps.
@usableFromInline
final class StepsCall<State: Sendable>: EntrySteps<State> {
  @usableFromInline let _call: (State) -> Void
  /// Has the receiver at the end of the steps hand what it holds to the subscriber; set once the
  /// receiver is attached.
  // Unchecked: written once, on the main actor while subscribing, before the entry is registered;
  // read only by deliveries, on the main queue, after that.
  @exclusivity(unchecked) @usableFromInline var _deliverHeld: ((SubscriptionStatus) -> Void)?

  @usableFromInline
  init(
    _ call: @escaping (State) -> Void,
    run: @escaping (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool
  ) {
    _call = call
    super.init(run: run)
  }

  @inlinable
  convenience init(_ call: @escaping (State) -> Void) {
    self.init(
      call,
      run: {
        HeldMark.clear()
        knownObject($0, as: StepsCall.self)._call($2)
        return HeldMark.take()
      })
  }

  /// Has the receiver of the steps of `entry`, if they are a `StepsCall`, hand what it holds to
  /// the subscriber.
  @MainActor
  @inlinable
  static func deliverHeld(to entry: SubscriptionEntry<State>) {
    guard let steps = entry._stepsAddress else { return }
    // The receiver's delivery, retained: the subscriber may end the subscription, which drops
    // the steps.
    let deliver = withObject(at: steps, as: EntrySteps<State>.self) {
      type(of: $0) == StepsCall.self ? knownObject($0, as: StepsCall.self)._deliverHeld : nil
    }
    deliver?(entry)
  }
}

/// Tells a `StepsCall` whether the steps built from steps that it ran kept a value for the
/// subscriber: set by the receiver at their end (``HeldStorage/hold(_:)``), taken by the call.
///
/// One mark on the main queue, where steps run, since the receiver is reached through closures
/// that return nothing. A C variable, as the delivery pass numbers (Delivery.swift).
@usableFromInline
enum HeldMark {
  /// Notes that the steps running keep a value.
  @inlinable
  static func set() {
    sc_held_mark_set()
  }

  /// Clears the mark before a call runs its steps.
  @inlinable
  static func clear() {
    sc_held_mark_clear()
  }

  /// Whether the steps that just ran kept a value; clears the mark.
  @inlinable
  static func take() -> Bool {
    sc_held_mark_take() != 0
  }
}
