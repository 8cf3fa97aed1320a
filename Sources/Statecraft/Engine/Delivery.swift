import Dispatch
import StatecraftAtomics
import StatecraftPrimitives

/// One list of subscriptions fed in a round's two phases (C13): the root store's, and each
/// scope's, which the root's round feeds through one subscription of the scope's.
///
/// Touched only on the main queue. The first phase runs every active subscription's steps and
/// notes which held a value; the second hands the held values over. Nothing changes the entries
/// between the two phases: a root's follow each other, and a scope does not forget its copy
/// during a round. The second phase keeps its own copy, for a subscribe during it.
@usableFromInline @frozen
struct Pass<State: Sendable> {
  /// The registry's entries and their addresses as of `entriesGeneration`.
  ///
  /// Read again only when they changed, which saves a round the registry's lock. Forgotten
  /// before a subscribe on the main queue, so that the registry appends to arrays it alone
  /// holds.
  @usableFromInline var entries: [SubscriptionEntry<State>] = []
  @usableFromInline var addresses: [UInt] = []
  @usableFromInline var entriesGeneration: UInt64 = .max
  /// The indices in `entries` whose steps held a value in the first phase, `heldCount` of them.
  ///
  /// Allocated on subscribing, so that a round does not; a raw buffer, because an array's append
  /// checks its uniqueness each time. Its owner deallocates it.
  @usableFromInline var held = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
  @usableFromInline var heldCount = 0

  @inlinable
  init() {}

  /// Frees `held`; for the owner's `deinit`.
  func deallocate() {
    held.deallocate()
  }

  /// Reads the registry's entries again, with `read`, as of `generation`.
  @inlinable
  mutating func refresh(
    generation: UInt64, _ read: () -> ([SubscriptionEntry<State>], [UInt])
  ) {
    (entries, addresses) = read()
    entriesGeneration = generation
  }

  /// Drops the copy of the registry's arrays; see `MainLoop.forgetSubscriptions()`.
  @inlinable
  mutating func forget() {
    entries = []
    addresses = []
    entriesGeneration = .max
  }

  /// Makes room for the indices of `count` subscriptions in `held`.
  ///
  /// Never between the two phases: the second reads the buffer a larger one would replace.
  @inlinable
  mutating func reserveHeld(_ count: Int) {
    guard held.count < count else { return }
    let old = held
    held = .allocate(capacity: Swift.max(count, 2 * old.count))
    old.deallocate()
  }

  /// The first phase: runs every subscription's steps on `state`, committed as `version`.
  ///
  /// Returns whether any subscription has work for the second phase.
  @inlinable
  mutating func select(_ state: State, version: UInt64) -> Bool {
    if held.count < addresses.count {
      reserveHeld(addresses.count)  // subscribed during a round or off the main queue (C15)
    }
    let held = self.held
    var count = 0
    let pass = DeliveryPass.begin()
    // `entries` keeps every entry alive, so the loops borrow them unretained, without a retain
    // and a release per subscriber.
    for index in addresses.indices {
      DeliveryPass.resume(pass)
      let holds = withObject(at: addresses[index], as: SubscriptionEntry<State>.self) {
        $0.select(state, version: version)
      }
      if holds {
        held[count] = index
        count += 1
      }
    }
    heldCount = count
    return count > 0
  }

  /// The second phase: hands the values the first held to their subscribers, and passes each
  /// subscription found gone to `remove`.
  @inlinable
  mutating func deliverHeld(remove: (SubscriptionEntry<State>) -> Void) {
    // Kept for the loop: a subscriber that subscribes makes the pass forget its copy.
    let entries = entries
    let addresses = addresses
    let held = UnsafeBufferPointer(rebasing: self.held[..<heldCount])
    heldCount = 0
    for index in held {
      let delivered = withObject(at: addresses[index], as: SubscriptionEntry<State>.self) {
        $0.deliverHeld()
      }
      if !delivered {
        remove(entries[index])  // the subscriber was found deallocated
      }
    }
  }
}

/// Numbers the delivery passes on the main queue, across stores: every subscription a pass
/// reaches receives the same state, so a value derived from it once serves the whole pass
/// (`MemoizedSelector`).
///
/// Touched only on the main queue. A round sets the number again before each subscription, so
/// a round of another store that runs inside a subscriber leaves no number of its own behind.
@usableFromInline
enum DeliveryPass {
  // The numbers are C variables (StatecraftAtomics): a Swift global is reached through
  // `swift_once` on every access.

  @inlinable
  static var current: UInt64 { sc_delivery_pass_current() }

  /// Starts a pass and returns its number.
  @inlinable
  static func begin() -> UInt64 {
    sc_delivery_pass_begin()
  }

  /// Makes `pass` the current one again.
  @inlinable
  static func resume(_ pass: UInt64) {
    sc_delivery_pass_resume(pass)
  }
}

/// Whether a subscription still delivers: four atomic words in one allocation, shared by its
/// entry, its last step and its token.
///
/// The last step holds it (not the entry weakly) to mark the subscription gone when it finds the
/// subscriber deallocated: a weak reference would move the entry's reference counts to the slow
/// path on every notification.
@usableFromInline @frozen
struct SubscriptionStatus: Sendable {
  @usableFromInline let _words: AtomicWords

  @usableFromInline
  init() {
    _words = AtomicWords(count: 4)
    _isActive.store(true, ordering: .relaxed)
  }

  /// Names the subscription, for the registry and the token.
  @inlinable
  var identity: ObjectIdentifier { _words.identity }

  /// Cleared by removal (any thread) or when the subscriber is found deallocated.
  ///
  /// Checked just before each delivery, so removal during a notification round takes effect at
  /// once.
  @inlinable
  var _isActive: AtomicWord<Bool> { _words[0] }

  /// Set once the registry has counted the subscription as removed; guarded by the bookkeeping
  /// lock.
  @inlinable
  var _isRemoved: AtomicWord<Bool> { _words[1] }

  /// The version of the state delivered on subscribing; later deliveries must be newer.
  ///
  /// `UInt64.max` until a subscription made off the main queue gets its first state there; set
  /// before the entry is shared or on the main queue, and read only there.
  @inlinable
  var _startVersion: AtomicWord<UInt64> { _words[2] }

  /// Set when the subscription's steps hold a value for the subscriber.
  ///
  /// A round's first phase ran them under the state lock, and its second phase hands the value
  /// over (C13). Touched only on the main queue.
  @inlinable
  var _isHolding: AtomicWord<Bool> { _words[3] }

  @usableFromInline
  func markGone() {
    _isActive.store(false, ordering: .releasing)
  }
}

/// The values a subscription's steps selected for the subscriber in a round's first phase.
///
/// Kept until its second phase hands them over (C13): usually one, several when a step emits
/// more than one value for a state (``Subscription/pulses(_:)``). Touched only on the main queue.
@usableFromInline @frozen
struct HeldValues<Value>: HeldStorage {
  @usableFromInline var _first: Value?
  @usableFromInline var _rest: [Value] = []

  @inlinable
  init() {}

  @inlinable
  mutating func append(_ value: Value) {
    if case .none = _first { _first = value } else { _rest.append(value) }
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

/// ``HeldValues``, as the receivers' type of what they hold: generic over it, not over its `Value`
/// alone, a class whose field is `HeldValues<Value>` looks that type up at run time to free it.
@usableFromInline
protocol HeldStorage {
  associatedtype Value
  init()
  mutating func append(_ value: Value)
  mutating func deliver(_ deliver: (Value) -> Void)
}

/// The last step of a subscriber object's subscription: holds the subscriber weakly and the
/// values its steps selected until the subscriber receives them.
///
/// The last step calls ``hold(_:)`` through a closure that captures only this object, so the
/// closure needs no context of its own: one allocation less per subscription than a closure
/// capturing the subscriber weakly and the status. Used only on the main queue.
@usableFromInline
final class SubscriberReceiver<Subscriber: StoreSubscriber, Held: HeldStorage>
where Held.Value == Subscriber.StoreSubscriberStateType {
  @usableFromInline let _status: SubscriptionStatus
  @usableFromInline weak let _subscriber: Subscriber?
  // Unchecked: touched only on the main queue, by `hold` and `deliverHeld`, which never overlap;
  // the run-time checks are a large part of a notification (Benchmarks/README.md, row c).
  @exclusivity(unchecked) @usableFromInline var _held = Held()

  @usableFromInline
  init(_ subscriber: Subscriber, status: SubscriptionStatus) {
    _subscriber = subscriber
    _status = status
  }

  /// Keeps `value` for ``deliverHeld()``; the last step of the subscription.
  @MainActor
  @inlinable
  func hold(_ value: Subscriber.StoreSubscriberStateType) {
    _held.append(value)
    _status._isHolding.store(true, ordering: .relaxed)
  }

  /// Hands the held values to the subscriber, or marks the subscription gone if the subscriber
  /// was deallocated.
  @MainActor
  @inlinable
  func deliverHeld() {
    _status._isHolding.store(false, ordering: .relaxed)
    guard let subscriber = _subscriber else {
      _held = Held()
      _status.markGone()
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
final class ClosureReceiver<Held: HeldStorage> {
  @usableFromInline let _status: SubscriptionStatus
  @usableFromInline let _receive: @MainActor (Held.Value) -> Void
  // Unchecked, as `SubscriberReceiver._held`.
  @exclusivity(unchecked) @usableFromInline var _held = Held()

  @usableFromInline
  init(status: SubscriptionStatus, receive: @escaping @MainActor (Held.Value) -> Void) {
    _status = status
    _receive = receive
  }

  /// Keeps `value` for ``deliverHeld()``.
  @MainActor
  @inlinable
  func hold(_ value: Held.Value) {
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
  @usableFromInline nonisolated let owner: ObjectIdentifier?
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

  @inlinable
  nonisolated var status: SubscriptionStatus { _status }

  /// Makes an entry whose steps are not built yet: the first step sets `_receive` when the
  /// subscription's steps are attached (`Store.makeSubscription`).
  @usableFromInline
  init(owner: ObjectIdentifier?, status: SubscriptionStatus, deliverHeld: @escaping () -> Void) {
    self.owner = owner
    _status = status
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
  /// At once on the main queue, which alone calls them, else in a block posted there. A step
  /// running now keeps its own reference until it returns. Nonisolated, as `select`, so that
  /// removal from any thread needs no closure to reach the main actor.
  @inlinable
  nonisolated func releaseSteps() {
    guard MainQueue.isCurrent else {
      DispatchQueue.main.async { self.releaseSteps() }  // at the latest by the next round
      return
    }
    _receive = nil
    _deliverHeld = nil
  }

  /// Delivers the state the subscription starts from, committed as `version`; on the main
  /// queue only.
  @inlinable
  nonisolated func deliverInitial(_ state: State, version: UInt64) {
    _status._startVersion.store(version, ordering: .relaxed)
    _receive?(state)
    _deliverHeld?()
  }
}
