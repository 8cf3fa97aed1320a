import StatecraftAtomics
import StatecraftPrimitives

/// The subscriptions of one store, in the order they were made.
///
/// Removal marks the entry inactive and leaves it in `entries` until enough have piled up to
/// compact, so subscribing and unsubscribing cost O(1) amortized however many subscriptions stand.
@usableFromInline
struct Registry<State: Sendable>: Sendable {
  @usableFromInline var _entries: [SubscriptionEntry<State>] = []
  /// The addresses of `_entries`, unretained, for the main loop's pass.
  ///
  /// Built here, where subscribing allocates anyway, so that a round after a subscription change
  /// does not allocate. Plain integers, a type that is not generic: this code runs unspecialized,
  /// and an array of `Unmanaged<SubscriptionEntry<State>>` would look its metadata up on each
  /// change.
  @usableFromInline var _addresses: [UInt] = []
  /// The entries by their key: a subscriber object's identity, or for a closure subscription the
  /// entry's own, by which its token names it: the token holds the entry strongly, because a weak
  /// reference to it would put every retain and release of it in the notification loop on the
  /// runtime's slow path.
  @usableFromInline var byKey: [ObjectIdentifier: SubscriptionEntry<State>] = [:]
  @usableFromInline var inactiveCount = 0
  /// Counts the changes of `_entries`, modulo 2³², for the rounds' copies of them.
  @usableFromInline var generation: UInt64 = 0
  /// A root store's words, where the count is also kept for its rounds to read without the
  /// registry's lock; `nil` for a scope's registry.
  @usableFromInline let words: StoreWords?

  var activeCount: Int { _entries.count - inactiveCount }

  @usableFromInline
  init(words: StoreWords?) {
    self.words = words
  }

  @inlinable
  mutating func changed() {
    generation = (generation &+ 1) & 0xFFFF_FFFF
    words?.registryChanged()
  }

  /// Removes every entry, for a store that is gone; returns them, for their steps to be dropped
  /// outside the lock (a token may keep its entry past the store).
  mutating func removeAll() -> [SubscriptionEntry<State>] {
    let entries = _entries
    for entry in entries { entry.markGone() }
    _entries = []
    _addresses = []
    byKey = [:]
    inactiveCount = 0
    return entries
  }

  /// Adds `entry` at the end; an entry of the same subscriber object is replaced.
  ///
  /// Returns the replaced one.
  @inlinable
  mutating func add(_ entry: SubscriptionEntry<State>) -> SubscriptionEntry<State>? {
    let replaced = byKey.updateValue(entry, forKey: entry.key)
    if let replaced { deactivate(replaced) }
    _entries.append(entry)
    _addresses.append(address(of: entry))
    changed()
    return replaced
  }

  /// Removes the subscription whose key is `key`: a subscriber object's identity, or a closure
  /// subscription's status's.
  ///
  /// Returns the removed entry, if there was one.
  @inlinable
  mutating func remove(key: ObjectIdentifier) -> SubscriptionEntry<State>? {
    guard let entry = byKey.removeValue(forKey: key), deactivate(entry) else { return nil }
    return entry
  }

  /// Removes `entry`, which is either still active (cancelled) or was found gone.
  ///
  /// Returns whether it was still registered.
  mutating func remove(_ entry: SubscriptionEntry<State>) -> Bool {
    if byKey[entry.key] === entry { byKey[entry.key] = nil }
    return deactivate(entry)
  }

  @inlinable @discardableResult
  mutating func deactivate(_ entry: SubscriptionEntry<State>) -> Bool {
    entry.markGone()
    guard !entry.markRemoved() else { return false }
    inactiveCount += 1
    if inactiveCount >= 32, inactiveCount * 2 >= _entries.count {
      _entries.removeAll { $0.isRemoved }
      _addresses.removeAll(keepingCapacity: true)
      for entry in _entries {
        _addresses.append(address(of: entry))
      }
      changed()
      inactiveCount = 0
    }
    return true
  }
}

/// An engine that keeps subscriptions: what the one flow of subscribing and unsubscribing asks
/// of a root store's core and of a scope's.
@usableFromInline
protocol SubscriptionHost<State>: SubscriptionRemoving {
  associatedtype State: Sendable

  /// Stops the program if the calling thread is running the reducer (C11).
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall)
  /// Counts a subscription being added, before the state it starts from is read, so that every
  /// commit after the read notifies it (C8): a root counts it in the words its commits read; a
  /// scope registers its node in its root for its first one.
  @MainActor func countAdded()
  /// Counts a subscription removed or replaced: a scope removes its node with its last one.
  func countRemoved()
  /// The committed state (a scope's slice of it) and its version; `nil` once a scope's root is
  /// gone.
  var subscribedState: (state: State, version: UInt64)? { get }
  /// Runs `body` on the registry, under the engine's lock.
  func withRegistry<Result>(_ body: (inout Registry<State>) -> Result) -> Result
  /// Before registering on the main queue: drops the rounds' copy of the registry's arrays
  /// where it may, so that the registry appends to arrays it alone holds.
  func forgetRegistryCopy()
  /// After registering on the main queue: makes room for `count` subscriptions' held values.
  func reserveHeld(_ count: Int)
  /// Hands a new subscription its first state with `deliver`, as a round of its own unless one
  /// runs.
  @MainActor func deliverFirst(_ deliver: () -> Void)
}

// MARK: Removing a subscription, which a token, a round or the flow of subscribing asks

extension SubscriptionHost {
  /// Removes the closure subscription whose entry is `status`: its token ended it.
  @usableFromInline
  func removeSubscription(status: SubscriptionStatus) {
    removeEntry { $0.remove(key: status.identity) }
  }

  /// Removes `entry`, which a round found gone.
  @usableFromInline
  func remove(_ entry: SubscriptionEntry<State>) {
    removeEntry { $0.remove(entry) ? entry : nil }
  }

  /// Removes the entry `find` takes out of the registry, uncounts it and drops its steps.
  @inlinable
  func removeEntry(_ find: (inout Registry<State>) -> SubscriptionEntry<State>?) {
    guard let entry = withRegistry(find) else { return }
    countRemoved()
    entry.releaseSteps()
  }
}

// MARK: A root store's registry and count

extension StoreCore {
  @inlinable
  func withRegistry<Result>(_ body: (inout Registry<State>) -> Result) -> Result {
    _books.withLock { body(&$0.registry) }
  }

  @inlinable
  func countAdded() {
    _ = _words.countSubscriptions(by: 1)
  }

  @inlinable
  func countRemoved() {
    _ = _words.countSubscriptions(by: -1)
  }
}
