import Dispatch
import StatecraftPrimitives

// Subscribing and unsubscribing a root store: the registry (Registry.swift) and the first
// delivery, as a round of its own (Rounds.swift).

extension StoreCore: SubscriptionRemoving {
  /// Registers a subscriber object's subscription and delivers the current state to it.
  ///
  /// Counts the subscription before reading the state: every commit after the read then
  /// notifies, and the entry's version gate drops what it already has (C8).
  @MainActor
  @usableFromInline
  func register(_ entry: SubscriptionEntry<State>) {
    _specialized._add(self, entry)
  }

  /// Registers the subscription at once; on the main queue it also delivers the current state,
  /// elsewhere (Swift 5 code calling `subscribe` off the main actor) the newest state is
  /// delivered on the main queue as soon as it runs, and rounds skip the entry until then (C15).
  ///
  /// Inlinable, and called through `_specialized`, so that it runs compiled for the app's
  /// `State`: in generic code each of the registry's generic types is looked up at run time.
  @MainActor
  @inlinable
  func add(_ entry: SubscriptionEntry<State>) {
    _reduction.checkNotReducing(.method("subscribe"))
    countSubscriptions(by: 1)
    guard let (state, version) = _reduction.snapshot else { Misuse.noState() }
    let isMainQueue = MainQueue.isCurrent
    entry.status._startVersion.store(isMainQueue ? version : .max, ordering: .relaxed)
    if isMainQueue { _mainLoop.forgetSubscriptions() }
    let (replaced, count) = _books.withLock { ($0.registry.add(entry), $0.registry._entries.count) }
    if let replaced {
      countSubscriptions(by: -1)
      replaced.releaseSteps()
    }
    if isMainQueue { _mainLoop.reserveHeld(count) }
    guard isMainQueue else {
      DispatchQueue.main.async { [weak self] in
        MainActor.assumeIsolated { self?.deliverFirstState(to: entry) }
      }
      return
    }
    _mainLoop.deliverFirst(self) { entry.deliverInitial(state, version: version) }
  }

  /// Delivers the newest state to a subscription made off the main queue.
  @MainActor
  @usableFromInline
  func deliverFirstState(to entry: SubscriptionEntry<State>) {
    guard entry.status._isActive.load(ordering: .acquiring),
      let (state, version) = _reduction.snapshot
    else { return }
    _mainLoop.deliverFirst(self) { entry.deliverInitial(state, version: version) }
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @usableFromInline
  func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken {
    _specialized._add(self, entry)
    // The registry alone owns the entry, so releasing the store releases the closure, which
    // lets a stream built on it finish. The token holds the store weakly and names the entry by
    // its status.
    return SubscriptionToken(store: self, status: entry.status)
  }

  @usableFromInline
  func removeSubscription(of owner: ObjectIdentifier) {
    _specialized._remove(self, owner)
  }

  /// Removes the subscription of `owner`; inlinable, as `add`.
  @inlinable
  func remove(owner: ObjectIdentifier) {
    _reduction.checkNotReducing(.method("unsubscribe"))
    if let entry = _books.withLock({ $0.registry.remove(owner: owner) }) {
      countSubscriptions(by: -1)
      entry.releaseSteps()
    }
  }

  func removeSubscription(status: SubscriptionStatus) {
    if let entry = _books.withLock({ $0.registry.remove(status: status) }) {
      countSubscriptions(by: -1)
      entry.releaseSteps()
    }
  }

  /// The subscriptions counted as standing, and the entries the registry keeps (removed ones not
  /// yet compacted included); for the package's tests of removal and compaction.
  @usableFromInline
  package var subscriptionCounts: (standing: Int, registered: Int) {
    (
      _words.subscriptionCount(ordering: .sequentiallyConsistent),
      _books.withLock { $0.registry._entries.count }
    )
  }
}
