import Dispatch

// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

/// The first step of a subscription: hands the store's states to the steps the transform added.
@usableFromInline
final class SubscriptionRelay<State> {
  @usableFromInline var _downstream: (State) -> Void = { _ in }

  @inlinable
  init() {}

  @inlinable
  var subscription: Subscription<State> {
    Subscription { self._downstream = $0 }
  }
}

/// `==` for `Value` when it is `Equatable`, found at run time so that generic code gets
/// automatic skip-repeats too.
@usableFromInline
package func dynamicEquality<Value>(of type: Value.Type) -> ((Value, Value) -> Bool)? {
  guard let equatable = type as? any Equatable.Type else { return nil }
  return equatable.sameTypeEquality(as: type)
}

extension Equatable {
  /// `==` usable where `Value` is only known to be `Self` at run time.
  fileprivate static func sameTypeEquality<Value>(as type: Value.Type) -> (Value, Value) -> Bool {
    precondition(Value.self == Self.self)
    // Value and Self are the same type, checked above, so the bit casts are identities.
    return { lhs, rhs in unsafeBitCast(lhs, to: Self.self) == unsafeBitCast(rhs, to: Self.self) }
  }
}

extension StoreCore: SubscriptionRemoving {
  /// Registers a subscription whose steps end in `relay` and delivers the current state to it.
  ///
  /// Counts the subscription before reading the state: every commit after the read then
  /// notifies, and the entry's version gate drops what it already has (C8).
  @MainActor
  @usableFromInline
  func register(
    _ relay: SubscriptionRelay<State>, status: SubscriptionStatus,
    deliverHeld: @escaping () -> Void, owner: ObjectIdentifier
  ) {
    add(relay, status: status, deliverHeld: deliverHeld, owner: owner)
  }

  /// Registers the subscription at once; on the main queue it also delivers the current state,
  /// elsewhere (Swift 5 code calling `subscribe` off the main actor) the newest state is
  /// delivered on the main queue as soon as it runs, and rounds skip the entry until then (C15).
  @MainActor
  private func add(
    _ relay: SubscriptionRelay<State>, status: SubscriptionStatus,
    deliverHeld: @escaping () -> Void, owner: ObjectIdentifier?
  ) {
    _reduction.checkNotReducing(.method("subscribe"))
    countSubscriptions(by: 1)
    guard let (state, version) = _reduction.snapshot else { Misuse.noState() }
    let isMainQueue = MainQueue.isCurrent
    let entry = SubscriptionEntry<State>(
      owner: owner, status: status, startVersion: isMainQueue ? version : .max,
      receive: relay._downstream, deliverHeld: deliverHeld)
    if isMainQueue { _mainLoop.forgetSubscriptions() }
    let (replaced, count) = _registry.withLock { ($0.add(entry), $0._entries.count) }
    if let replaced {
      countSubscriptions(by: -1)
      release(replaced)
    }
    // Not during a round: its second phase reads the buffer a larger one would replace.
    if isMainQueue, !_mainLoop._isRunning { _mainLoop.reserveHeld(count) }
    guard isMainQueue else {
      DispatchQueue.main.async { [weak self] in
        MainActor.assumeIsolated { self?.deliverFirstState(to: entry) }
      }
      return
    }
    _mainLoop.deliverFirst(self, to: entry, state, version: version)
  }

  /// Delivers the newest state to a subscription made off the main queue.
  @MainActor
  private func deliverFirstState(to entry: SubscriptionEntry<State>) {
    guard entry.status._isActive.load(ordering: .acquiring),
      let (state, version) = _reduction.snapshot
    else { return }
    _mainLoop.deliverFirst(self, to: entry, state, version: version)
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @usableFromInline
  func registerToken(
    _ relay: SubscriptionRelay<State>, status: SubscriptionStatus,
    deliverHeld: @escaping () -> Void
  ) -> SubscriptionToken {
    add(relay, status: status, deliverHeld: deliverHeld, owner: nil)
    // The registry alone owns the entry, so releasing the store releases the closure, which
    // lets a stream built on it finish. The token holds the store weakly and names the entry by
    // its status.
    return SubscriptionToken(store: self, status: status)
  }

  func removeSubscription(of owner: ObjectIdentifier) {
    _reduction.checkNotReducing(.method("unsubscribe"))
    if let entry = _registry.withLock({ $0.remove(owner: owner) }) {
      countSubscriptions(by: -1)
      release(entry)
    }
  }

  func removeSubscription(status: SubscriptionStatus) {
    if let entry = _registry.withLock({ $0.remove(status: status) }) {
      countSubscriptions(by: -1)
      release(entry)
    }
  }

  @usableFromInline
  func remove(_ entry: SubscriptionEntry<State>) {
    if _registry.withLock({ $0.remove(entry) }) {
      countSubscriptions(by: -1)
      release(entry)
    }
  }

  /// Releases what a removed subscription's steps capture: at once on the main queue, which
  /// alone calls them, else as soon as the main queue runs, at the latest by the next round.
  private func release(_ entry: SubscriptionEntry<State>) {
    if MainQueue.isCurrent {
      entry.releaseSteps()
    } else {
      DispatchQueue.main.async { entry.releaseSteps() }
    }
  }

  /// The subscriptions counted as standing, and the entries the registry keeps (removed ones not
  /// yet compacted included); for the package's tests of removal and compaction.
  package var subscriptionCounts: (standing: Int, registered: Int) {
    (
      _subscriptionCount.load(ordering: .sequentiallyConsistent),
      _registry.withLock { $0._entries.count }
    )
  }

  /// Changes the subscription count and tells the occupancy observer when it crosses zero.
  private func countSubscriptions(by delta: Int) {
    let old = _subscriptionCount.add(delta, ordering: .sequentiallyConsistent).oldValue
    guard (old == 0) != (old + delta == 0) else { return }
    _occupancyObserver.withLock { $0 }?()
  }

  /// Calls `observer` each time the number of subscriptions goes from zero to one or back.
  func observeOccupancy(_ observer: @escaping @Sendable () -> Void) {
    _occupancyObserver.withLock { $0 = observer }
  }
}
