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
  @usableFromInline var byKey = EntryTable<State>()
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
    byKey = EntryTable()
    inactiveCount = 0
    return entries
  }

  /// Adds `entry` at the end; an entry of the same subscriber object is replaced.
  ///
  /// Returns the replaced one.
  @inlinable
  mutating func add(_ entry: SubscriptionEntry<State>) -> SubscriptionEntry<State>? {
    let replaced = byKey.insert(entry)
    if let replaced { deactivate(replaced) }
    _entries.append(entry)
    _addresses.append(address(of: entry))
    changed()
    return replaced
  }

  /// Removes the subscription whose key is `key`: a subscriber object's identity, or a closure
  /// subscription's entry's own.
  ///
  /// Returns the removed entry, if there was one.
  @inlinable
  mutating func remove(key: ObjectIdentifier) -> SubscriptionEntry<State>? {
    guard let entry = byKey.remove(key: key), deactivate(entry) else { return nil }
    return entry
  }

  /// Removes `entry`, which is either still active (cancelled) or was found gone.
  ///
  /// Returns whether it was still registered.
  mutating func remove(_ entry: SubscriptionEntry<State>) -> Bool {
    byKey.remove(entry)
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

/// The registry's entries by their key, as their addresses: open addressing with linear probing,
/// at most three quarters full, so that finding a subscriber's entry costs a few probes and the
/// table one word a slot (a dictionary's buckets hold the key too).
///
/// A slot is an entry's address, unretained, or 0: the registry's array keeps every entry the
/// table names, since an entry leaves the table before it leaves the array. A plain array of
/// integers, so that unspecialized code looks no type up.
@usableFromInline
struct EntryTable<State: Sendable>: Sendable {
  @usableFromInline var _slots: [UInt] = []
  @usableFromInline var _count = 0

  @usableFromInline
  init() {}

  /// Where `key` would be without collisions: Fibonacci hashing of the identity, an address
  /// whose low bits are alike for every object.
  @inlinable
  func _home(_ key: ObjectIdentifier) -> Int {
    let mixed = UInt(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: mixed >> UInt(64 - _slots.count.trailingZeroBitCount))
  }

  @inlinable
  func _key(at slot: Int) -> ObjectIdentifier {
    withObject(at: _slots[slot], as: SubscriptionEntry<State>.self) { $0.key }
  }

  /// The slot holding the entry of `key`, or the empty slot where it would go.
  @inlinable
  func _slot(of key: ObjectIdentifier) -> Int {
    let mask = _slots.count - 1
    var slot = _home(key)
    while _slots[slot] != 0, _key(at: slot) != key {
      slot = (slot + 1) & mask
    }
    return slot
  }

  /// Adds `entry` under its key; returns the entry it replaces.
  @inlinable
  mutating func insert(_ entry: SubscriptionEntry<State>) -> SubscriptionEntry<State>? {
    if (_count + 1) * 4 > _slots.count * 3 { _grow() }
    let slot = _slot(of: entry.key)
    let replaced = _entry(at: slot)
    if replaced == nil { _count += 1 }
    _slots[slot] = address(of: entry)
    return replaced
  }

  /// Removes and returns the entry of `key`.
  @inlinable
  mutating func remove(key: ObjectIdentifier) -> SubscriptionEntry<State>? {
    guard _count > 0 else { return nil }
    let slot = _slot(of: key)
    guard let entry = _entry(at: slot) else { return nil }
    _vacate(slot)
    return entry
  }

  /// Removes `entry`, if the table has it under its key rather than another.
  @usableFromInline
  mutating func remove(_ entry: SubscriptionEntry<State>) {
    guard _count > 0 else { return }
    let slot = _slot(of: entry.key)
    if _slots[slot] == address(of: entry) { _vacate(slot) }
  }

  @inlinable
  func _entry(at slot: Int) -> SubscriptionEntry<State>? {
    _slots[slot] == 0 ? nil : withObject(at: _slots[slot], as: SubscriptionEntry<State>.self) { $0 }
  }

  /// Empties `slot`, moving back the entries after it that probing would no longer reach.
  @usableFromInline
  mutating func _vacate(_ slot: Int) {
    let mask = _slots.count - 1
    var hole = slot
    var next = slot
    while true {
      next = (next + 1) & mask
      guard _slots[next] != 0 else { break }
      let home = _home(_key(at: next))
      // Stays if its home lies cyclically in (hole, next].
      let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if !stays {
        _slots[hole] = _slots[next]
        hole = next
      }
    }
    _slots[hole] = 0
    _count -= 1
  }

  @usableFromInline
  mutating func _grow() {
    let old = _slots
    _slots = Array(repeating: 0, count: Swift.max(16, 2 * old.count))
    let mask = _slots.count - 1
    for address in old where address != 0 {
      var slot = _home(withObject(at: address, as: SubscriptionEntry<State>.self) { $0.key })
      while _slots[slot] != 0 { slot = (slot + 1) & mask }
      _slots[slot] = address
    }
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
