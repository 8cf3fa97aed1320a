import Dispatch
import StatecraftAtomics
import StatecraftPrimitives

// Subscribing and unsubscribing: one flow for a root store's engine and a scope's
// (`SubscriptionHost`, Registry.swift). Each keeps its subscriptions in a `Registry` and feeds them
// in its rounds through a `Pass` (Delivery.swift); a scope's rounds are its node's in the root
// (Scope.swift).

extension SubscriptionHost {
  /// Registers `entry` and delivers the state it starts from.
  ///
  /// On the main queue the state is delivered at once; elsewhere (Swift 5 code calling
  /// `subscribe` off the main actor) the newest state is delivered on the main queue as soon as
  /// it runs, and rounds skip the entry until then (C15).
  ///
  /// Inlinable, so that a root store runs it compiled for the app's `State`
  /// (`StoreCore._specialized`): in generic code each of the registry's generic types is looked
  /// up at run time.
  @MainActor
  @inlinable
  func add(_ entry: SubscriptionEntry<State>) {
    checkNotReducing(.method("subscribe"))
    countAdded()
    guard let (state, version) = subscribedState else { Misuse.noState() }
    let isMainQueue = MainQueue.isCurrent
    entry.setStartVersion(isMainQueue ? version : SubscriptionStatus.unstarted)
    if isMainQueue { forgetRegistryCopy() }
    let (replaced, count) = withRegistry { ($0.add(entry), $0._entries.count) }
    if let replaced {
      countRemoved()
      replaced.releaseSteps()
    }
    if isMainQueue { reserveHeld(count) }
    guard isMainQueue else {
      DispatchQueue.main.async { [weak self] in
        MainActor.assumeIsolated { self?.deliverFirstState(to: entry) }
      }
      return
    }
    deliverFirst { entry.deliverInitial(state, version: version) }
  }

  /// Delivers the newest state to a subscription made off the main queue.
  @MainActor
  @usableFromInline
  func deliverFirstState(to entry: SubscriptionEntry<State>) {
    guard entry.isActive(.acquiring),
      let (state, version) = subscribedState
    else { return }
    deliverFirst { entry.deliverInitial(state, version: version) }
  }

  /// Registers a closure subscription and returns the token that ends it.
  ///
  /// The token holds the engine weakly and the entry as its status; a store that goes drops its
  /// entries' steps, so releasing the store releases the closure, which lets a stream built on it
  /// finish.
  @MainActor
  @usableFromInline
  func token(for entry: SubscriptionEntry<State>) -> SubscriptionToken {
    SubscriptionToken(store: self, status: entry)
  }

  /// Removes the subscription of `owner`; inlinable, as `add`.
  @inlinable
  func remove(owner: ObjectIdentifier) {
    checkNotReducing(.method("unsubscribe"))
    removeEntry { $0.remove(key: owner) }
  }
}

// MARK: A root store's subscriptions

extension StoreCore: SubscriptionHost {
  /// Registers a subscriber object's subscription and delivers the current state to it.
  @MainActor
  @usableFromInline
  func register(_ entry: SubscriptionEntry<State>) {
    _specialized._add(self, entry)
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @usableFromInline
  func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken {
    _specialized._add(self, entry)
    return token(for: entry)
  }

  @usableFromInline
  func removeSubscription(of owner: ObjectIdentifier) {
    _specialized._remove(self, owner)
  }

  @inlinable
  var subscribedState: (state: State, version: UInt64)? { _reduction.snapshot }

  /// Always: a round's second phase delivers from copies of its own.
  @inlinable
  func forgetRegistryCopy() {
    _mainLoop.forgetSubscriptions()
  }

  @inlinable
  func reserveHeld(_ count: Int) {
    _mainLoop.reserveHeld(count)
  }

  @MainActor
  @usableFromInline
  func deliverFirst(_ deliver: () -> Void) {
    _mainLoop.deliverFirst(self, deliver)
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

// MARK: What subscribing and removal do to an entry

extension SubscriptionStatus {
  /// The start version of a subscription made off the main queue until it gets its first state
  /// there: newer than every version.
  @inlinable
  nonisolated static var unstarted: UInt64 { .max >> 2 }

  /// Sets the start version, on the main queue or before the entry is shared; other threads only
  /// set and clear the two flags, so the two steps lose none of theirs.
  @inlinable
  nonisolated final func setStartVersion(_ version: UInt64) {
    _flags.clearBits(~(SubscriptionStatus.active | SubscriptionStatus.removed), ordering: .relaxed)
    _flags.setBits(Swift.min(version, SubscriptionStatus.unstarted) << 2, ordering: .relaxed)
  }

  /// Marks the subscription counted as removed; returns whether it was already.
  @inlinable
  nonisolated final func markRemoved() -> Bool {
    _flags.setBits(SubscriptionStatus.removed, ordering: .relaxed) & SubscriptionStatus.removed != 0
  }

  /// Clears the active bit; returns whether it was set, so that of two threads ending the
  /// subscription one alone goes on.
  @inlinable
  nonisolated final func end() -> Bool {
    _flags.clearBits(SubscriptionStatus.active, ordering: .acquiringAndReleasing)
      & SubscriptionStatus.active != 0
  }
}

extension SubscriptionEntry {
  /// Drops the steps, with what they capture (the user's closures); for a removed subscription,
  /// whose `select` and `deliverHeld` no longer run.
  ///
  /// At once on the main queue, which alone calls them, else in a block posted there; during a
  /// round's first phase, which runs the steps borrowed, after it. A delivery running now keeps
  /// its own reference until it returns. Nonisolated, as `select`, so that removal from any
  /// thread needs no closure to reach the main actor.
  @usableFromInline
  nonisolated final func releaseSteps() {
    // During a round's first phase a step may be running borrowed, as `select` calls it (a
    // selector cancelled a token): then after the phase.
    guard MainQueue.isCurrent, sc_reducing_action() != sc_selecting_marker() else {
      DispatchQueue.main.async { self.releaseSteps() }  // at the latest by the next round
      return
    }
    _steps = nil
    dropSteps()
  }

  /// Delivers the state the subscription starts from, committed as `version`; on the main
  /// queue only.
  @inlinable
  nonisolated final func deliverInitial(_ state: State, version: UInt64) {
    setStartVersion(version)
    guard let steps = _steps else { return }
    var state = state  // see `EntrySteps._run`
    if steps._run(steps, self, &state) { _deliver(self) }
  }
}
