// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

/// Whether a subscription still delivers, shared by its entry and its last step.
///
/// The last step holds it strongly (not the entry weakly) to mark the subscription gone when it
/// finds the subscriber deallocated: a weak reference would move the entry's reference counts to
/// the slow path on every notification.
@usableFromInline
class SubscriptionStatus: @unchecked Sendable {
  // @unchecked Sendable: the words are only read and written through the atomic operations of
  // `AtomicWord`. One stored tuple instead of three `AtomicCell`s: three allocations less per
  // subscription (96 requested bytes), and one cache line for what each delivery reads.
  @usableFromInline var _words:
    (isActive: UInt64, isRemoved: UInt64, startVersion: UInt64, isHolding: UInt64) = (1, 0, 0, 0)

  @inlinable
  final var _base: UnsafeMutablePointer<UInt64> {
    _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: UInt64.self)
  }

  /// Cleared by removal (any thread) or when the subscriber is found deallocated.
  ///
  /// Checked just before each delivery, so removal during a notification round takes effect at
  /// once.
  @inlinable
  final var _isActive: AtomicWord<Bool> { AtomicWord(_base) }

  /// Set once the registry has counted the subscription as removed; guarded by the registry
  /// lock.
  @inlinable
  final var _isRemoved: AtomicWord<Bool> { AtomicWord(_base + 1) }

  /// The version of the state delivered on subscribing; later deliveries must be newer.
  ///
  /// `UInt64.max` until a subscription made off the main queue gets its first state there; set
  /// before the entry is shared or on the main queue, and read only there.
  @inlinable
  final var _startVersion: AtomicWord<UInt64> { AtomicWord(_base + 2) }

  /// Set when the subscription's steps hold a value for the subscriber.
  ///
  /// A round's first phase ran them under the state lock, and its second phase hands the value
  /// over (C13). Touched only on the main queue.
  @inlinable
  final var _isHolding: AtomicWord<Bool> { AtomicWord(_base + 3) }

  @inlinable
  init() {}

  @usableFromInline
  final func markGone() {
    _isActive.store(false, ordering: .releasing)
  }
}

/// The values a subscription's steps selected for the subscriber in a round's first phase.
///
/// Kept until its second phase hands them over (C13): usually one, several when a step emits
/// more than one value for a state (``Subscription/pulses(_:)``). Touched only on the main queue.
@usableFromInline
struct HeldValues<Value> {
  @usableFromInline var _first: Value?
  @usableFromInline var _rest: [Value] = []

  @inlinable
  init() {}

  @inlinable
  mutating func append(_ value: Value) {
    if case .none = _first {
      _first = value
    } else {
      _rest.append(value)
    }
  }

  /// Removes the values and calls `deliver` with each, in the order they were held.
  @inlinable
  mutating func deliver(_ deliver: (Value) -> Void) {
    guard let first = _first.take() else { return }
    deliver(first)
    if !_rest.isEmpty {
      let rest = _rest
      _rest = []
      for value in rest { deliver(value) }
    }
  }
}

/// The status of a subscriber object's subscription, which also holds the subscriber weakly and
/// the values its steps selected until the subscriber receives them.
///
/// The last step calls ``hold(_:)`` through a closure that captures only this object, so the
/// closure needs no context of its own: one allocation less per subscription than a closure
/// capturing the subscriber weakly and the status.
@usableFromInline
final class SubscriberStatus<Subscriber: StoreSubscriber>: SubscriptionStatus,
  @unchecked Sendable
{
  // @unchecked Sendable: the subscriber and the held values are used only on the main queue.
  @usableFromInline weak let _subscriber: Subscriber?
  // Unchecked: touched only on the main queue, by `hold` and `deliverHeld`, which never overlap;
  // the run-time checks would cost a third of a notification (benchmark c).
  @exclusivity(unchecked) @usableFromInline
  var _held = HeldValues<Subscriber.StoreSubscriberStateType>()

  @inlinable
  init(_ subscriber: Subscriber) {
    _subscriber = subscriber
    super.init()
  }

  /// Keeps `value` for ``deliverHeld()``; the last step of the subscription.
  @MainActor
  @inlinable
  func hold(_ value: Subscriber.StoreSubscriberStateType) {
    _held.append(value)
    _isHolding.store(true, ordering: .relaxed)
  }

  /// Hands the held values to the subscriber, or marks the subscription gone if the subscriber
  /// was deallocated.
  @MainActor
  @inlinable
  func deliverHeld() {
    _isHolding.store(false, ordering: .relaxed)
    guard let subscriber = _subscriber else {
      _held = HeldValues()
      markGone()
      return
    }
    _held.deliver { subscriber.newState(state: $0) }
  }
}

/// The last step of a closure subscription: holds the closure and the values the steps selected
/// until the closure receives them.
///
/// Not the status, which the token holds: the closure must go with the store (a stream built on
/// it finishes then), and a scope's closure holds the scope, which holds its token.
@usableFromInline
final class ClosureReceiver<Value> {
  @usableFromInline let _status: SubscriptionStatus
  @usableFromInline let _receive: @MainActor (Value) -> Void
  // Unchecked, as `SubscriberStatus._held`.
  @exclusivity(unchecked) @usableFromInline var _held = HeldValues<Value>()

  @inlinable
  init(status: SubscriptionStatus, receive: @escaping @MainActor (Value) -> Void) {
    _status = status
    _receive = receive
  }

  /// Keeps `value` for ``deliverHeld()``.
  @MainActor
  @inlinable
  func hold(_ value: Value) {
    _held.append(value)
    _status._isHolding.store(true, ordering: .relaxed)
  }

  /// Hands the held values to the closure.
  @MainActor
  @inlinable
  func deliverHeld() {
    _status._isHolding.store(false, ordering: .relaxed)
    _held.deliver { _receive($0) }
  }
}

/// One subscription: the composed pipeline from the store's state to the subscriber, and the
/// identity it is registered under.
@MainActor
@usableFromInline
final class SubscriptionEntry<State: Sendable>: Sendable {
  /// The subscriber object, for `unsubscribe(_:)`; `nil` for closure subscriptions.
  nonisolated let owner: ObjectIdentifier?
  @usableFromInline nonisolated let _status: SubscriptionStatus
  /// The composed steps, ending in the status's `hold`; called only on the main queue, in a
  /// round's first phase (under the state lock) and by `deliverInitial`.
  ///
  /// `nil` once the subscription is removed, so that the user's closures go at once although the
  /// entry stays until the registry compacts.
  // nonisolated(unsafe): read and written only on the main queue; see `select`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var _receive: ((State) -> Void)?
  /// Hands what the steps held to the subscriber: the status's `deliverHeld`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var _deliverHeld: (() -> Void)?

  nonisolated var status: SubscriptionStatus { _status }

  init(
    owner: ObjectIdentifier?, status: SubscriptionStatus, startVersion: UInt64,
    receive: @escaping (State) -> Void, deliverHeld: @escaping () -> Void
  ) {
    self.owner = owner
    _status = status
    status._startVersion.store(startVersion, ordering: .relaxed)
    _receive = receive
    _deliverHeld = deliverHeld
  }

  /// A round's first phase: runs the steps on the state committed as `version`, unless this
  /// subscription already has it or is no longer active.
  ///
  /// Returns whether the second phase has work here: a value the steps held for the subscriber,
  /// or a subscription found gone that is still registered.
  ///
  /// Called only by the main loop, on the main queue. Nonisolated so that the loop can call it
  /// through an unretained reference from a `@Sendable` closure: a closure isolated to the main
  /// actor is checked at run time on every call.
  @inlinable
  nonisolated func select(_ state: State, version: UInt64) -> Bool {
    assert(MainQueue.isCurrent, "a subscription delivers only on the main queue")
    if _status._isActive.load(ordering: .acquiring) {
      guard version > _status._startVersion.load(ordering: .relaxed) else { return false }
      _receive?(state)
      return _status._isHolding.load(ordering: .relaxed)
    }
    return !_status._isRemoved.load(ordering: .relaxed)
  }

  /// A round's second phase: hands the value the first phase held to the subscriber, outside the
  /// state lock.
  ///
  /// Returns `false` if the subscription turned out to be gone.
  @inlinable
  nonisolated func deliverHeld() -> Bool {
    if _status._isActive.load(ordering: .acquiring) {
      _deliverHeld?()
      if _status._isActive.load(ordering: .relaxed) { return true }
    }
    return _status._isRemoved.load(ordering: .relaxed)
  }

  /// Drops the steps and the subscriber's closure, with what they capture; for a removed
  /// subscription, whose `select` and `deliverHeld` no longer call them.
  ///
  /// A step running now keeps its own reference until it returns. Called only on the main queue;
  /// nonisolated, as `select`, so that removal needs no closure to reach the main actor.
  nonisolated func releaseSteps() {
    assert(MainQueue.isCurrent, "a subscription's steps are released only on the main queue")
    _receive = nil
    _deliverHeld = nil
  }

  /// Delivers the state the subscription starts from, committed as `version`.
  func deliverInitial(_ state: State, version: UInt64) {
    _status._startVersion.store(version, ordering: .relaxed)
    _receive?(state)
    _deliverHeld?()
  }
}

/// The subscriptions of one store, in the order they were made.
///
/// Removal marks the entry inactive and leaves it in `entries` until enough have piled up to
/// compact, so subscribing and unsubscribing cost O(1) amortized however many subscriptions stand.
@usableFromInline
struct Registry<State: Sendable>: Sendable {
  @usableFromInline private(set) var _entries: [SubscriptionEntry<State>] = []
  /// The addresses of `_entries`, unretained, for the main loop's pass.
  ///
  /// Built here, where subscribing allocates anyway, so that a round after a subscription change
  /// does not allocate. Plain integers, a type that is not generic: this code runs unspecialized,
  /// and an array of `Unmanaged<SubscriptionEntry<State>>` would look its metadata up on each
  /// change.
  @usableFromInline private(set) var _addresses: [UInt] = []
  private var byOwner: [ObjectIdentifier: SubscriptionEntry<State>] = [:]
  /// Closure subscriptions, by their status: a token names its subscription by the status it
  /// holds strongly, because a weak reference to the entry would put every retain and release of
  /// it in the notification loop on the runtime's slow path.
  private var byStatus: [ObjectIdentifier: SubscriptionEntry<State>] = [:]
  private var inactiveCount = 0
  /// Counts the changes of `_entries` (shared with the core, which reads it without the
  /// registry's lock).
  private let generation: AtomicCell<UInt64>

  var activeCount: Int { _entries.count - inactiveCount }

  @usableFromInline
  init(generation: AtomicCell<UInt64>) {
    self.generation = generation
  }

  /// Adds `entry` at the end; an entry of the same owner is replaced.
  ///
  /// Returns the replaced one.
  mutating func add(_ entry: SubscriptionEntry<State>) -> SubscriptionEntry<State>? {
    var replaced: SubscriptionEntry<State>?
    if let owner = entry.owner {
      replaced = byOwner.updateValue(entry, forKey: owner)
      if let replaced { deactivate(replaced) }
    } else {
      byStatus[ObjectIdentifier(entry.status)] = entry
    }
    _entries.append(entry)
    _addresses.append(UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque()))
    generation.add(1, ordering: .releasing)
    return replaced
  }

  /// Removes the subscription of `owner`.
  ///
  /// Returns the removed entry, if there was one.
  mutating func remove(owner: ObjectIdentifier) -> SubscriptionEntry<State>? {
    guard let entry = byOwner.removeValue(forKey: owner), deactivate(entry) else { return nil }
    return entry
  }

  /// Removes the closure subscription whose status is `status`.
  ///
  /// Returns the removed entry, if there was one.
  mutating func remove(status: SubscriptionStatus) -> SubscriptionEntry<State>? {
    guard let entry = byStatus.removeValue(forKey: ObjectIdentifier(status)), deactivate(entry)
    else { return nil }
    return entry
  }

  /// Removes `entry`, which is either still active (cancelled) or was found gone.
  ///
  /// Returns whether it was still registered.
  mutating func remove(_ entry: SubscriptionEntry<State>) -> Bool {
    if let owner = entry.owner {
      if byOwner[owner] === entry { byOwner[owner] = nil }
    } else {
      byStatus[ObjectIdentifier(entry.status)] = nil
    }
    return deactivate(entry)
  }

  @discardableResult
  private mutating func deactivate(_ entry: SubscriptionEntry<State>) -> Bool {
    entry.status.markGone()
    guard !entry.status._isRemoved.exchange(true, ordering: .relaxed) else { return false }
    inactiveCount += 1
    if inactiveCount >= 32, inactiveCount * 2 >= _entries.count {
      _entries.removeAll { $0.status._isRemoved.load(ordering: .relaxed) }
      _addresses.removeAll(keepingCapacity: true)
      for entry in _entries {
        _addresses.append(UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque()))
      }
      generation.add(1, ordering: .releasing)
      inactiveCount = 0
    }
    return true
  }
}
