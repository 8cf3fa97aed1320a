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
    var state = state  // the one copy every subscription's steps read (`EntrySteps._run`)
    let pass = DeliveryPass.begin()
    // `entries` keeps every entry alive, so the loops borrow them unretained, without a retain
    // and a release per subscriber.
    for index in addresses.indices {
      DeliveryPass.resume(pass)
      let holds = withObject(at: addresses[index], as: SubscriptionEntry<State>.self) {
        $0.select(&state, version: version)
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
